import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.agent.DefaultGenomes;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.agent.*;
import dev.kevo.data.Precision;
import java.nio.file.*;

public class Render {
    // args: dtype base-genome-json out.cu [path=value ...]
    public static void main(String[] a) throws Exception {
        ObjectMapper m = new ObjectMapper();
        ObjectNode n = (ObjectNode) m.readTree(a[1]);
        for (int i = 3; i < a.length; i++) {
            String[] kv = a[i].split("=");
            String[] path = kv[0].split("\\.");
            ObjectNode o = n;
            for (int j = 0; j < path.length - 1; j++) o = (ObjectNode) o.get(path[j]);
            String v = kv[1];
            if (v.equals("true") || v.equals("false")) o.put(path[path.length - 1], Boolean.parseBoolean(v));
            else if (v.matches("-?\\d+")) o.put(path[path.length - 1], Integer.parseInt(v));
            else o.put(path[path.length - 1], v);
        }
        Precision dt = Precision.parse(a[0]);
        Genome g = Genome.fromJson(n, DefaultGenomes.float32());
        Files.writeString(Path.of(a[2]), KernelRenderer.render(g, dt));
    }
}
