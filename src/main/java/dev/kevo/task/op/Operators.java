package dev.kevo.task.op;

import dev.kevo.data.Defaults;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The operators kevo can judge, by id: its own, then any that a jar on the class path names in
 * {@code META-INF/services/dev.kevo.task.op.Operator} (an id kevo already has is an error, not a silent override).
 */
public final class Operators {
    public static final Operator SOFTMAX = new Softmax();
    public static final Operator LOG_SOFTMAX = new LogSoftmax();
    public static final Operator MASKED_SOFTMAX = new MaskedSoftmax();
    public static final Operator SOFTMAX_BACKWARD = new SoftmaxBackward();
    public static final Operator LOG_SOFTMAX_BACKWARD = new LogSoftmaxBackward();
    public static final Operator CROSS_ENTROPY = CrossEntropy.MEAN;
    public static final Operator CROSS_ENTROPY_SUM = CrossEntropy.SUM;
    private static final Map<String, Operator> KNOWN = load();
    /** The operator of a kernel file without an {@code op} header key, and of a config without {@code op}. */
    public static final Operator DEFAULT = byId(Defaults.OP);

    private Operators() {
    }

    private static Map<String, Operator> load() {
        Map<String, Operator> known = new LinkedHashMap<>();
        for (Operator op : List.of(SOFTMAX, LOG_SOFTMAX, MASKED_SOFTMAX, SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD,
                CROSS_ENTROPY, CROSS_ENTROPY_SUM)) {
            known.put(op.id(), op);
        }
        for (Operator op : ServiceLoader.load(Operator.class, Operators.class.getClassLoader())) {
            Operator before = known.putIfAbsent(op.id(), op);
            if (before != null) {
                throw new IllegalStateException("two operators named '" + op.id() + "': "
                        + before.getClass().getName() + " and " + op.getClass().getName());
            }
        }
        return Map.copyOf(known);
    }

    /** @throws IllegalArgumentException naming the known ids */
    public static Operator byId(String id) {
        Operator op = KNOWN.get(id.trim());
        if (op == null) {
            throw new IllegalArgumentException("unknown operator '" + id + "' (known: " + ids() + ")");
        }
        return op;
    }

    public static String ids() {
        return KNOWN.keySet().stream().sorted().collect(Collectors.joining(", "));
    }
}
