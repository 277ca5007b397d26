package dev.kevo.cli;

import picocli.CommandLine.IVersionProvider;

/** kevo's version from the jar manifest; "dev" when running from classes. */
public final class Version implements IVersionProvider {

    public static String current() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"kevo " + current()};
    }
}
