import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.agent.DefaultGenomes;
import dev.kevo.agent.Genome;
import dev.kevo.agent.KernelRenderer;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Renders a built-in genome with the genome library as it is now: a campaign's mutant record (its "genome", e.g. a
 * champion.json) or, with "default", the built-in agent's default genome. A change to the library is measured on the
 * genomes a campaign already chose by rendering them again, without a new campaign. Run from the repository root after
 * `mvn compile` (the classpath: `mvn -q dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt`):
 * java -cp target/classes:$(cat /tmp/cp.txt) tools/RenderGenome.java RECORD.json|default OP DTYPE OUT.cu
 */
public class RenderGenome {
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: RenderGenome RECORD.json|default OP DTYPE OUT.cu");
            System.exit(2);
        }
        Precision dtype = Precision.parse(args[2]);
        Task task = new Task(Operators.byId(args[1]), dtype);
        ObjectMapper json = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        Genome genome = args[0].equals("default") ? DefaultGenomes.of(task)
                : json.treeToValue(json.readTree(Path.of(args[0]).toFile()).get("genome"), Genome.class);
        Files.writeString(Path.of(args[3]), KernelRenderer.render(genome.normalized(task), task));
    }
}
