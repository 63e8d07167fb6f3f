package dev.materializer.benchmarks.cost;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The kinds of scenario of the cost report, as {@code --only} names them: each is one or more rows
 * of the summary table and of the details.
 */
enum CostRow {

    /** The per-document views, one per size of {@code --sizes}. */
    PER_DOCUMENT("per-document"),

    /** The group-by view over a large partition: an update, and an insert. */
    GROUP_BY("group-by"),

    /** A view over a view, in two partitions. */
    VIEW_OVER_VIEW("view-over-view"),

    /** A delete without a pre-image, acme's view beside globex's. */
    DELETE("delete"),

    /** A delete whose partition is unknown, across many tenants. */
    DELETE_TENANTS("delete-tenants"),

    /** A burst of one insert in each of many tenants sharing one definition, one per size of {@code --burst-tenants}. */
    BURST("burst"),

    /**
     * A rolling restart of three instances over many tenants, with and without writes while an
     * instance is down, one per size of {@code --rolling-tenants}.
     */
    ROLLING("rolling");

    /** The name {@code --only} takes. */
    final String option;

    CostRow(String option) {
        this.option = option;
    }

    /** The row of an {@code --only} name. */
    static CostRow of(String option) {
        for (CostRow row : values()) {
            if (row.option.equals(option)) {
                return row;
            }
        }
        throw new IllegalArgumentException("--only: unknown row '" + option + "' (the rows are " + names() + ")");
    }

    static String names() {
        return Arrays.stream(values()).map(row -> row.option).collect(Collectors.joining(", "));
    }
}
