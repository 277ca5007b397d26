package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * How one model request was put together, recorded so that the requests of a generation can be told apart: two
 * requests that share all of these would pay a model twice for one question.
 *
 * @param template the prompt template's name
 * @param parent the id of the kernel the prompt asks to improve
 * @param inspirations the ids of the other islands' kernels it shows
 * @param focus the shapes it asks the model to look at first, worst first, or null when it names none
 * @param temperature the sampling temperature sent, or null when the provider's own default applies
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PromptChoice(String template, String parent, List<String> inspirations, String focus,
                           Double temperature) {
    public PromptChoice {
        inspirations = inspirations == null ? List.of() : List.copyOf(inspirations);
    }
}
