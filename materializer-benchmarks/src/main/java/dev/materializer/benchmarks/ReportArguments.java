package dev.materializer.benchmarks;

import java.util.Locale;
import java.util.function.Function;

/**
 * How the reports (cost, heap, scale) read their command line: the settings, or the usage on
 * {@code --help} (exit 0) or after a bad argument, with what was wrong (exit 2).
 */
public final class ReportArguments {

    /** What a report's parser throws, as the message of an {@link IllegalArgumentException}, to ask for the usage. */
    public static final String USAGE = "usage";

    private ReportArguments() {
    }

    /**
     * Parses the arguments, or prints the usage and exits.
     * @param <S> the report's settings
     * @param args the command line
     * @param parse the report's parser; throws {@link IllegalArgumentException} naming what is wrong, or {@value #USAGE}
     * @param usage the usage text
     * @return the settings
     */
    public static <S> S parseOrExit(String[] args, Function<String[], S> parse, String usage) {
        Locale.setDefault(Locale.ROOT);
        try {
            return parse.apply(args);
        }
        catch (IllegalArgumentException ex) {
            boolean asked = USAGE.equals(ex.getMessage());
            (asked ? System.out : System.err).println((asked ? "" : ex.getMessage() + "\n") + usage);
            System.exit(asked ? 0 : 2);
            throw ex;
        }
    }
}
