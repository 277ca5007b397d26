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
 * @param name       what the example says it checks against
 * @param definition Python the example defines before its checks (a function the call uses), or ""
 * @param call       a Python expression of {@code inputs}, the op's keyword arguments by name: the answer in float64
 */
record TorchReference(String name, String definition, String call) {

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

    /** Operator id to its reference; each computes what kevo's reference does, in float64. */
    private static final Map<String, TorchReference> REFERENCES = Map.of(
            "softmax", function("torch.softmax"),
            "log_softmax", function("torch.log_softmax"),
            "masked_softmax", new TorchReference("torch.softmax of the scaled, masked scores (reference() below)",
                    MASKED_SOFTMAX, "reference(**inputs)"));

    /** torch's function of the same name over the inputs in float64, {@code torch.softmax(x.double(), dim=-1)}. */
    private static TorchReference function(String name) {
        return new TorchReference(name, "", name + "(*(t.double() for t in inputs.values()), dim=-1)");
    }

    static Optional<TorchReference> of(Operator op) {
        return Optional.ofNullable(REFERENCES.get(op.id()));
    }
}
