package dev.kevo.export;

import dev.kevo.task.op.Operator;
import java.util.Map;
import java.util.Optional;

/**
 * What a torch package's example checks the operator against, in float64: torch's own function for the same operator
 * over the last dimension, {@code f(inputs..., dim=-1)}, or for an operator torch has no single function for, torch's
 * composition of it (masked_softmax: {@code torch.softmax} of the scaled, masked scores). An operator with none here
 * exports to C++ only, whose example checks it against kevo's own reference.
 *
 * <p>A gradient's example draws its inputs as training gives them ({@link #inputs}: the forward's output on spread x,
 * and an incoming gradient) and bounds each element's error as kevo does, relative to dy's scale ({@link #scale}),
 * not to dx, which cancels.
 *
 * @param name       what the example says it checks against
 * @param definition Python the example defines before its checks (functions the other expressions use), or ""
 * @param call       a Python expression of {@code inputs}, the op's keyword arguments by name: the answer in float64
 * @param inputs     a Python function of {@code (rows, cols, dtype)} that the definition defines, giving
 *                   {@code inputs}, or "" where the example draws each input spread, as kevo's normal cases do
 * @param scale      a Python expression of {@code inputs}: what an element's error is bounded relative to, or "" for
 *                   the answer's magnitude
 */
record TorchReference(String name, String definition, String call, String inputs, String scale) {

    /**
     * masked_softmax as its definition says (docs/operators.md#masked_softmax), in torch: softmax of scale * x + bias
     * in float64, the bias -inf at a masked key, and 0 on a row with no key left, where torch.softmax gives NaN.
     */
    private static final String MASKED_SOFTMAX = """
            def reference(x, scale, mask_kind="none", lengths=None, mask=None):
                \"""torch.softmax(scale * x + bias, dim=-1) in float64 over x as the op reads it ([batch, heads, queries,
                keys]), scale as the float32 the op takes: bias is -inf where the mask kind masks a key (causal: key c >
                q + keys - queries, aligned to the bottom right; padding: c >= lengths[b]; additive: a mask entry of -inf
                or torch.finfo(dtype).min) and the additive mask's entry elsewhere (0 for the other kinds). A row with no
                key left is 0, as PyTorch's SDPA writes it (torch.softmax alone gives NaN there).\"""
                batch, heads, queries, keys = x.shape
                scale = torch.tensor(scale, dtype=torch.float32).item()
                key = torch.arange(keys, device=x.device)
                bias = torch.zeros(batch, 1, queries, keys, dtype=torch.float64, device=x.device)
                if mask_kind == "causal":
                    query = torch.arange(queries, device=x.device).view(queries, 1)
                    bias = bias.masked_fill(key > query + (keys - queries), float("-inf"))
                elif mask_kind == "padding":
                    bias = bias.masked_fill(key >= lengths.view(batch, 1, 1, 1), float("-inf"))
                elif mask_kind == "additive":
                    m = mask.reshape(batch, 1, queries, keys)
                    bias = m.double().masked_fill((m == float("-inf")) | (m == torch.finfo(m.dtype).min), float("-inf"))
                scores = scale * x.double() + bias
                empty = (scores == float("-inf")).all(dim=-1, keepdim=True)
                return torch.softmax(scores, dim=-1).masked_fill(empty, 0.0)
            """;

    /**
     * A gradient of the softmax family: its inputs y (FORWARD of spread x, in float64 then rounded to dtype, as a
     * forward pass gives it) and dy (spread), and kevo's scale of an element's error, |dy| + WEIGHT * sum over the row
     * of |TERM| (docs/measurement.md).
     */
    private static final String GRADIENT = """
            def gradient_inputs(rows, cols, dtype):
                \"""y as the forward pass gives it (FORWARD of spread x, rounded to dtype) and a spread incoming gradient.\"""
                x = torch.randn(rows, cols, device="cuda", dtype=torch.float64) * 4
                return {"y": FORWARD(x, dim=-1).to(dtype), "dy": torch.randn(rows, cols, device="cuda").to(dtype)}


            def gradient_scale(y, dy):
                \"""kevo's scale of an element's error: |dy| + WEIGHT * (sum over the row of |TERM|).\"""
                y, dy = y.double(), dy.double()
                return dy.abs() + WEIGHT * (TERM).abs().sum(dim=-1, keepdim=True)
            """;

    /** Operator id to its reference; each computes what kevo's reference does, in float64. */
    private static final Map<String, TorchReference> REFERENCES = Map.of(
            "softmax", function("torch.softmax"),
            "log_softmax", function("torch.log_softmax"),
            "masked_softmax", new TorchReference("torch.softmax of the scaled, masked scores (reference() below)",
                    MASKED_SOFTMAX, "reference(**inputs)", "", ""),
            "softmax_backward", gradient("torch._softmax_backward_data", "torch.softmax", "y", "y * dy"),
            "log_softmax_backward", gradient("torch._log_softmax_backward_data", "torch.log_softmax", "y.exp()", "dy"),
            // A loss's example (Examples.torchLoss) has its own checks, of both outputs and through autograd: its
            // reference is named here, and computed there.
            "cross_entropy", new TorchReference("F.cross_entropy (mean, ignore_index=-100) and its gradient in autograd",
                    "", "", "", ""),
            "cross_entropy_sum", new TorchReference("F.cross_entropy (sum, ignore_index=-100) and its gradient in "
                    + "autograd", "", "", "", ""));

    /** torch's function of the same name over the inputs in float64, {@code torch.softmax(x.double(), dim=-1)}. */
    private static TorchReference function(String name) {
        return new TorchReference(name, "", name + "(*(t.double() for t in inputs.values()), dim=-1)", "", "");
    }

    /**
     * torch's backward function {@code name(dy, y, dim, dtype)} in float64, on inputs of {@code forward}, with kevo's
     * scale from the gradient's weight and term (Python of y and dy).
     */
    private static TorchReference gradient(String name, String forward, String weight, String term) {
        String definition = GRADIENT.replace("FORWARD", forward).replace("WEIGHT", weight).replace("TERM", term);
        return new TorchReference(name, definition, name + "(inputs[\"dy\"].double(), inputs[\"y\"].double(), -1, "
                + "torch.float64)", "gradient_inputs", "gradient_scale(**inputs)");
    }

    static Optional<TorchReference> of(Operator op) {
        return Optional.ofNullable(REFERENCES.get(op.id()));
    }
}
