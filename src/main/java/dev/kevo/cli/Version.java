package dev.kevo.cli;

import dev.kevo.store.RecordSeal;
import picocli.CommandLine.IVersionProvider;

/** kevo's version from the jar manifest; "dev" when running from classes. */
public final class Version implements IVersionProvider {

    public static String current() {
        return RecordSeal.version();
    }

    @Override
    public String[] getVersion() {
        return new String[] {"kevo " + current()};
    }
}
