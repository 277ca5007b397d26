package dev.kevo.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Assembles one self-contained HTML file from the resources beside this class: the template, the stylesheet, a
 * page's body and script, the libraries and the data, all inline, so the file opens anywhere without a network
 * or the campaign folder.
 *
 * <p>Escaping: title and footer are HTML-escaped. The data goes into a {@code <script type="application/json">}
 * element with every {@code <}, {@code >} and {@code &} written as a JSON unicode escape, so a kernel source holding
 * {@code </script>} or {@code <!--} cannot end or change the element, and {@code JSON.parse} reads the escapes
 * back; the page never puts data into innerHTML. Scripts have {@code </script} written as {@code <\/script}, which
 * means the same in every place JavaScript allows it.
 */
public final class HtmlPage {

    /** The two pages: body and script resources named after them. */
    public enum Kind {
        CAMPAIGN("campaign", List.of(WebJar.CHART_JS, WebJar.CYTOSCAPE)),
        COMPARE("compare", List.of(WebJar.CHART_JS));

        private final String name;
        private final List<WebJar> libraries;

        Kind(String name, List<WebJar> libraries) {
            this.name = name;
            this.libraries = libraries;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SLOT = Pattern.compile("@(TITLE|STYLE|BODY|FOOTER|DATA|LIBRARIES|SCRIPT)@");
    private static final Pattern SCRIPT_END = Pattern.compile("(?i)</(script)");

    private HtmlPage() {
    }

    /** @param footer one line saying who made the page, when, and how (the command) */
    public static String render(Kind kind, String title, String footer, Object data) {
        String libraries = kind.libraries.stream()
                .map(lib -> "<script>/* " + lib.title() + " " + lib.version() + " */\n" + script(lib.source())
                        + "\n</script>")
                .collect(Collectors.joining("\n"));
        String credits = kind.libraries.stream().map(lib -> lib.title() + " " + lib.version())
                .collect(Collectors.joining(", "));
        Map<String, String> slots = Map.of(
                "TITLE", html(title),
                "STYLE", resource("report.css"),
                "BODY", resource(kind.name + ".html"),
                "FOOTER", html(footer + " | charts: " + credits + "; diffs: java-diff-utils"),
                "DATA", "<script type=\"application/json\" id=\"kevo-data\">" + json(data) + "</script>",
                "LIBRARIES", libraries,
                "SCRIPT", "<script>\n" + script(resource("common.js")) + "\n" + script(resource(kind.name + ".js"))
                        + "\n</script>");
        // One pass, so that text put into one slot (a library's source, say) is never searched for another.
        Matcher m = SLOT.matcher(resource("page.html"));
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(slots.get(m.group(1))));
        }
        m.appendTail(out);
        return out.toString();
    }

    static String html(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** JSON for a script element: '<', '>' and '&' occur only inside strings there, where unicode escapes keep them. */
    static String json(Object data) {
        try {
            return JSON.writeValueAsString(data).replace("<", "\\u003c").replace(">", "\\u003e")
                    .replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String script(String source) {
        if (source.contains("<!--")) {
            // Inside a script element "<!--" changes how HTML finds the element's end; no rewrite of it is
            // valid in every JavaScript context, so a library that starts holding one must be looked at.
            throw new IllegalStateException("a script for the report contains \"<!--\"");
        }
        return SCRIPT_END.matcher(source).replaceAll("<\\\\/$1");
    }

    private static String resource(String name) {
        try (InputStream in = HtmlPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource dev/kevo/report/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
