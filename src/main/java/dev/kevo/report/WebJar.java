package dev.kevo.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * The JavaScript libraries the report inlines, read from the classpath where Maven put them (webjars from
 * Maven Central, see pom.xml). The version is read from the webjar's pom.properties rather than written here, so
 * upgrading is a pom change alone.
 */
enum WebJar {
    CHART_JS("chart.js", "dist/chart.umd.min.js", "Chart.js"),
    CYTOSCAPE("cytoscape", "dist/cytoscape.min.js", "Cytoscape.js");

    private final String artifact;
    private final String file;
    private final String title;

    WebJar(String artifact, String file, String title) {
        this.artifact = artifact;
        this.file = file;
        this.title = title;
    }

    String title() {
        return title;
    }

    String version() {
        Properties pom = new Properties();
        try (InputStream in = open("META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties")) {
            pom.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pom.getProperty("version");
    }

    String source() {
        try (InputStream in = open("META-INF/resources/webjars/" + artifact + "/" + version() + "/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private InputStream open(String resource) {
        InputStream in = WebJar.class.getClassLoader().getResourceAsStream(resource);
        if (in == null) {
            // A build that skipped the inline-webjars step; nothing a user can fix by changing an input.
            throw new IllegalStateException(resource + " is not on the classpath (see inline-webjars in pom.xml)");
        }
        return in;
    }
}
