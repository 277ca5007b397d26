package dev.kevo.task;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Scalar;
import dev.kevo.task.op.Tensor;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads the kernel file contract: a {@code /*@kevo {JSON} *}{@code /} header that holds the launch plan.
 * Every error names the file and, where it helps, the line.
 */
public final class ContractParser {

    public static final String HEADER_START = "/*@kevo";
    /** Sources larger than this are rejected before anything else looks at them. */
    public static final int MAX_SOURCE_BYTES = 256 * 1024;

    /** Where Jackson's messages say a place is in its input; the header line is added to make it the file's. */
    private static final Pattern JACKSON_LOCATION = Pattern.compile("\\[Source: .*?; line: (\\d+), column: \\d+\\]");
    /** The keys a header, a plan and a launch may have; any other is an error. */
    public static final Set<String> TOP_KEYS = Set.of("description", "op", "dtype", "workspace", "plans", "knobs",
            "knob_rule");
    public static final Set<String> PLAN_KEYS = Set.of("when", "launches");
    public static final Set<String> LAUNCH_KEYS = Set.of("kernel", "grid", "block", "smem", "cooperative", "cluster",
            "args");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private ContractParser() {
    }

    public static KernelFile read(Path path) {
        String source;
        try {
            long size = Files.size(path);
            if (size > MAX_SOURCE_BYTES) {
                throw new ContractException(oversized(path.toString(), size));
            }
            source = Files.readString(path, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ContractException(path + ": no such file");
        } catch (MalformedInputException e) {
            throw new ContractException(path + ": not UTF-8 text");
        } catch (IOException e) {
            throw new ContractException(path + ": cannot read (" + e.getMessage() + ")");
        }
        return parse(path.getFileName().toString(), path, source);
    }

    public static KernelFile parse(String name, Path path, String source) {
        try {
            return parseBounded(name, path, source);
        } catch (StackOverflowError | OutOfMemoryError e) {
            throw ContractException.exhausted(path != null ? path.toString() : name, e);
        }
    }

    private static KernelFile parseBounded(String name, Path path, String source) {
        // a character is at least a byte: a text of more characters than the limit is over it without counting
        long bytes = source.length() > MAX_SOURCE_BYTES ? source.length()
                : source.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOURCE_BYTES) {
            throw new ContractException(oversized(path != null ? path.toString() : name, bytes));
        }
        int start = source.indexOf(HEADER_START);
        if (start < 0) {
            throw new ContractException((path != null ? path.toString() : name) + ": no " + HEADER_START + " header (the launch plan, see docs/contract.md)");
        }
        int jsonStart = start + HEADER_START.length();
        int end = source.indexOf("*/", jsonStart);
        if (end < 0) {
            throw new ContractException((path != null ? path.toString() : name) + ":" + SourcePolicy.lineOf(source, start) + ": " + HEADER_START
                    + " header is never closed with */");
        }
        int headerLine = SourcePolicy.lineOf(source, jsonStart);
        String where = path != null ? path.toString() : name;
        String header = source.substring(jsonStart, end);
        JsonNode root;
        Map<String, Integer> lines;
        try {
            root = JSON.readTree(header);
            lines = valueLines(header);
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            int line = headerLine + (loc == null ? 0 : Math.max(0, loc.getLineNr() - 1));
            throw new ContractException(where + ":" + line + ": malformed " + HEADER_START + " JSON: "
                    + withoutJacksonSource(e.getOriginalMessage(), headerLine));
        } catch (IOException e) {
            throw new ContractException(where + ":" + headerLine + ": cannot read " + HEADER_START + " JSON: "
                    + e.getMessage());
        }
        Set<String> knobs = new TreeSet<>();
        root.path("knobs").fieldNames().forEachRemaining(knobs::add);
        Reader plain = new Reader(where, headerLine, lines, knobs, Operators.DEFAULT);
        Reader reader = new Reader(where, headerLine, lines, knobs, plain.op(root));
        return reader.file(name, path, source, root);
    }

    /**
     * The one line for a kernel file over {@link #MAX_SOURCE_BYTES}, wherever it comes from (a file, a model's
     * answer, a campaign's record): checked before anything else reads it, so no scan of it can take long.
     */
    public static String oversized(String where, long bytes) {
        return where + ": " + (bytes > MAX_SOURCE_BYTES * 4L ? "over " + MAX_SOURCE_BYTES * 4L : bytes)
                + " bytes, over the " + MAX_SOURCE_BYTES + "-byte limit for a kernel file (docs/contract.md)";
    }

    /**
     * Jackson's message with each location it embeds ({@code [Source: REDACTED (...); line: 1, column: 27]}, the
     * source being withheld) as the file's line: the user reads a kernel file, not Jackson's input.
     */
    static String withoutJacksonSource(String message, int headerLine) {
        return JACKSON_LOCATION.matcher(message).replaceAll(m ->
                "line " + (headerLine + Integer.parseInt(m.group(1)) - 1));
    }

    /**
     * The header line (counted from 1) where each JSON value starts, by JSON pointer: a key's own line for an
     * object member, so that an error about a key or its value points at the line that holds it.
     */
    private static Map<String, Integer> valueLines(String header) throws IOException {
        Map<String, Integer> lines = new HashMap<>();
        try (JsonParser parser = JSON.getFactory().createParser(header)) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                JsonStreamContext context = parser.getParsingContext();
                // a container's start token already belongs to the context it opens; its pointer is its parent's
                JsonStreamContext at = token.isStructStart() ? context.getParent() : context;
                if (token.isStructEnd() || at == null) {
                    continue;
                }
                lines.putIfAbsent(at.pathAsPointer().toString(), parser.currentTokenLocation().getLineNr());
            }
        }
        return lines;
    }

    /**
     * Where the reader is in the header: as the user reads it (plans, launches and args counted from 1, as
     * {@code kevo check} and the plan resolver count them) and as a JSON pointer, for the line.
     */
    private record At(String shown, String pointer) {
        static final At HEADER = new At("header", "");

        At plan(int index) {
            return new At("plan " + (index + 1), pointer + "/plans/" + index);
        }

        At launch(int index) {
            return new At(shown + " launch " + (index + 1), pointer + "/launches/" + index);
        }

        At arg(int index) {
            return new At(shown + " arg " + (index + 1), pointer + "/args/" + index);
        }

        At key(String key) {
            return new At((this == HEADER ? "" : shown + " ") + "'" + key + "'", pointer + "/" + key);
        }
    }

    /** Walks the header JSON, naming the place and the file's line in messages. */
    private record Reader(String file, int headerLine, Map<String, Integer> lines, Set<String> knobs, Operator op) {

        /** The header's {@code op}: one operator kevo knows; softmax when absent, as every file before the key. */
        Operator op(JsonNode root) {
            if (root == null || !root.isObject() || !root.has("op")) {
                return Operators.DEFAULT;
            }
            try {
                return Operators.byId(text(root.get("op"), At.HEADER.key("op")));
            } catch (IllegalArgumentException e) {
                throw error("/op", e.getMessage());
            }
        }

        KernelFile file(String name, Path path, String source, JsonNode root) {
            object(root, At.HEADER, TOP_KEYS);
            String description = root.has("description")
                    ? text(root.get("description"), At.HEADER.key("description")) : "";
            List<Precision> dtypes = root.has("dtype") ? dtypes(root.get("dtype")) : List.of(Precision.FP32);
            Expr workspace = root.has("workspace")
                    ? expr(root.get("workspace"), At.HEADER.key("workspace")) : Expr.constant(0);
            JsonNode plansNode = root.get("plans");
            if (plansNode == null || !plansNode.isArray() || plansNode.isEmpty()) {
                throw error(At.HEADER.key("plans"), " must be a non-empty list");
            }
            List<KernelFile.Plan> plans = new ArrayList<>();
            for (int p = 0; p < plansNode.size(); p++) {
                plans.add(plan(plansNode.get(p), At.HEADER.plan(p)));
            }
            return withKnobs(new KernelFile(name, path, source, description, workspace, plans, Knobs.NONE, dtypes, op),
                    root);
        }

        /** {@code "bf16"} or {@code ["fp32", "bf16"]}: each a dtype kevo judges, none twice. */
        private List<Precision> dtypes(JsonNode node) {
            At at = At.HEADER.key("dtype");
            List<JsonNode> items = new ArrayList<>();
            if (node.isArray() && !node.isEmpty()) {
                node.forEach(items::add);
            } else if (!node.isArray()) {
                items.add(node);
            } else {
                throw error(at, " must be a dtype or a non-empty list of them");
            }
            List<Precision> dtypes = new ArrayList<>();
            for (JsonNode item : items) {
                try {
                    Precision p = Precision.parse(text(item, at));
                    if (dtypes.contains(p)) {
                        throw new IllegalArgumentException("dtype '" + p.id() + "' is listed twice");
                    }
                    dtypes.add(p);
                } catch (IllegalArgumentException e) {
                    throw error("/dtype", e.getMessage());
                }
            }
            return dtypes;
        }

        /** The header's knobs (see {@link KnobParser}), checked against every expression that names one. */
        private KernelFile withKnobs(KernelFile file, JsonNode root) {
            try {
                Knobs knobs = KnobParser.parse(root.get("knobs"), root.get("knob_rule"), file.source());
                KernelFile knobbed = file.withKnobs(knobs);
                KnobParser.checkExpressions(knobbed);
                return knobbed;
            } catch (IllegalArgumentException e) {
                throw error(root.has("knobs") ? "/knobs" : "", e.getMessage());
            }
        }

        private KernelFile.Plan plan(JsonNode node, At at) {
            object(node, at, PLAN_KEYS);
            Expr when = node.has("when") ? expr(node.get("when"), at.key("when")) : Expr.parse("true");
            JsonNode launchesNode = node.get("launches");
            if (launchesNode == null || !launchesNode.isArray() || launchesNode.isEmpty()) {
                throw error(at.key("launches"), " must be a non-empty list");
            }
            List<KernelFile.Launch> launches = new ArrayList<>();
            for (int l = 0; l < launchesNode.size(); l++) {
                launches.add(launch(launchesNode.get(l), at.launch(l)));
            }
            return new KernelFile.Plan(when, launches);
        }

        private KernelFile.Launch launch(JsonNode node, At at) {
            object(node, at, LAUNCH_KEYS);
            for (String key : List.of("kernel", "grid", "block", "args")) {
                if (!node.has(key)) {
                    throw error(at, " has no '" + key + "'");
                }
            }
            String kernel = text(node.get("kernel"), at.key("kernel"));
            if (!kernel.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw error(at.key("kernel"), ": '" + kernel + "' is not a C identifier");
            }
            Expr smem = node.has("smem") ? expr(node.get("smem"), at.key("smem")) : Expr.constant(0);
            boolean cooperative = false;
            if (node.has("cooperative")) {
                if (!node.get("cooperative").isBoolean()) {
                    throw error(at.key("cooperative"), " must be true or false");
                }
                cooperative = node.get("cooperative").asBoolean();
            }
            Expr cluster = node.has("cluster") ? expr(node.get("cluster"), at.key("cluster")) : Expr.constant(1);
            JsonNode argsNode = node.get("args");
            if (!argsNode.isArray()) {
                throw error(at.key("args"), " must be a list");
            }
            List<KernelFile.Arg> args = new ArrayList<>();
            for (int a = 0; a < argsNode.size(); a++) {
                args.add(arg(argsNode.get(a), at.arg(a)));
            }
            return new KernelFile.Launch(kernel, expr(node.get("grid"), at.key("grid")),
                    expr(node.get("block"), at.key("block")), smem, cooperative, cluster, args);
        }

        private KernelFile.Arg arg(JsonNode node, At at) {
            if (node.isTextual()) {
                String key = node.asText().trim().toLowerCase(Locale.ROOT);
                if (key.equals(KernelFile.WORKSPACE) || op.tensors().stream().map(Tensor::name).anyMatch(key::equals)
                        || op.scalars().stream().map(Scalar::name).anyMatch(key::equals)) {
                    return new KernelFile.Arg.Buffer(key);
                }
            }
            return new KernelFile.Arg.Int(expr(node, at));
        }

        private Expr expr(JsonNode node, At at) {
            if (!(node.isTextual() || node.isIntegralNumber() || node.isBoolean())) {
                throw error(at, " must be an expression string or an integer");
            }
            try {
                return Expr.parseAllowingKnobs(node.asText(), knobs, op.planVariables());
            } catch (IllegalArgumentException e) {
                throw error(at, ": " + e.getMessage());
            }
        }

        private String text(JsonNode node, At at) {
            if (!node.isTextual()) {
                throw error(at, " must be a string");
            }
            return node.asText();
        }

        private void object(JsonNode node, At at, Set<String> allowed) {
            if (node == null || !node.isObject()) {
                throw error(at, " must be a JSON object");
            }
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String key = it.next();
                if (!allowed.contains(key)) {
                    throw error(at.key(key).pointer(), at.shown() + ": unknown key '" + key + "' (allowed: "
                            + String.join(", ", allowed.stream().sorted().toList()) + ")");
                }
            }
        }

        /** {@code file:line: place what}, for example {@code plan 2 launch 1 'grid': 'rosw': unknown name}. */
        private ContractException error(At at, String what) {
            return error(at.pointer(), at.shown() + what);
        }

        /** The line is that of the value the pointer names, or of its nearest parent the header holds. */
        private ContractException error(String pointer, String message) {
            Integer line = lines.get(pointer);
            while (line == null && !pointer.isEmpty()) {
                pointer = pointer.substring(0, pointer.lastIndexOf('/'));
                line = lines.get(pointer);
            }
            int fileLine = headerLine + (line == null ? 0 : line - 1);
            return new ContractException(file + ":" + fileLine + ": " + message);
        }
    }
}
