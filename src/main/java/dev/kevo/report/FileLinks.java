package dev.kevo.report;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * Links from a report page to files of a campaign folder, relative to where the page is written, so the page
 * and the folder can be moved together (a report inside its campaign folder links to {@code g0001-i0-c0.cu}).
 */
record FileLinks(Path pageDir, Path campaignDir) {

    FileLinks {
        pageDir = pageDir.toAbsolutePath().normalize();
        campaignDir = campaignDir.toAbsolutePath().normalize();
    }

    String file(String name) {
        String relative = pageDir.relativize(campaignDir.resolve(name)).toString().replace('\\', '/');
        try {
            // Percent-encodes what a path may hold but an href may not (spaces, '#', '%').
            return new URI(null, null, relative, null).toASCIIString();
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(relative, e);
        }
    }
}
