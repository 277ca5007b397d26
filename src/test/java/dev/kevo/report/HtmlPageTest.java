package dev.kevo.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The page is one file whose data cannot break out of its element, whatever a kernel source holds. */
class HtmlPageTest {
    static final String HOSTILE = "</script><script>alert(1)</script> <!-- & \u2028 */ <b>";

    record Data(String kind, String source, List<String> more) {
    }

    static String page() {
        return HtmlPage.render(HtmlPage.Kind.COMPARE, "a <title> & more", "footer </footer>",
                new Data("compare", HOSTILE, List.of("x<y", "a&b")));
    }

    @Test
    void dataSurvivesTheTripThroughTheScriptElementExactly() throws Exception {
        String html = page();
        Matcher m = Pattern.compile("(?s)<script type=\"application/json\" id=\"kevo-data\">(.*?)</script>")
                .matcher(html);
        assertTrue(m.find(), "the data element");
        String json = m.group(1);
        assertFalse(json.contains("<") || json.contains(">") || json.contains("&"), json);
        JsonNode back = new ObjectMapper().readTree(json);
        assertEquals(HOSTILE, back.path("source").asText());
        assertEquals("x<y", back.path("more").get(0).asText());
    }

    @Test
    void titleAndFooterAreEscapedAndNothingIsLoadedFromTheNetwork() {
        String html = page();
        assertTrue(html.contains("<title>a &lt;title&gt; &amp; more</title>"), "escaped title");
        assertTrue(html.contains("footer &lt;/footer&gt;"), "escaped footer");
        assertFalse(Pattern.compile("<script[^>]+src=|<link[^>]+href=|https?://[^\"' ]+\\.js").matcher(html).find(),
                "no external scripts or stylesheets");
        assertTrue(html.contains("Chart.js " + WebJar.CHART_JS.version()), "libraries named with their versions");
        assertFalse(html.contains("cytoscape"), "the compare page needs no graph library");
    }

    @Test
    void everyScriptElementEndsWhereItShould() {
        String html = HtmlPage.render(HtmlPage.Kind.CAMPAIGN, "t", "f", Map.of("kind", "campaign", "x", HOSTILE));
        int opened = count(html, "<script");
        int closed = count(html, "</script>");
        assertEquals(opened, closed);
        assertEquals(4, opened, "data, two libraries and the page script: nothing the data opened");
    }

    @Test
    void scriptsAreEscapedOrRefused() {
        assertEquals("var s = '<\\/script>'; var t = '<\\/SCRIPT'", HtmlPage.script("var s = '</script>'; var t = '</SCRIPT'"));
        assertThrows(IllegalStateException.class, () -> HtmlPage.script("x = '<!--'"));
        assertEquals("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;", HtmlPage.html("a <b> & \"c\" 'd'"));
    }

    @Test
    void librariesComeFromTheClasspathWithTheirVersions() {
        for (WebJar lib : WebJar.values()) {
            assertTrue(lib.version().matches("\\d+\\.\\d+\\.\\d+"), lib.version());
            assertTrue(lib.source().length() > 100_000, lib + " is the minified library");
            assertFalse(lib.source().contains("<!--"), lib + " can be inlined");
        }
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
