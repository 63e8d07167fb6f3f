package dev.materializer.spring.observation;

import java.util.Locale;

import dev.materializer.spring.metrics.MaterializerMeters;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default name and keys of a pass's observation. Its name is {@code materializer.pass}: Boot's
 * meter handler makes of it the timer of passes (the starter then times none itself). Low
 * cardinality (fit for meters): {@code outcome}, {@code mode} and {@code scope} ({@code none} while
 * the pass has not reported, e.g. for a pass that ended without a report). High cardinality (for
 * traces only): {@code partition} and {@code view}, since an instance may have tens of thousands of
 * views. Extend it, or implement {@link PassObservationConvention}, and define a bean of that type
 * to change them for the starter's observations; or register a {@code GlobalObservationConvention}
 * of {@link PassObservationContext} on the {@code ObservationRegistry}, which replaces this one
 * where no bean does.
 */
public class DefaultPassObservationConvention implements PassObservationConvention {

    /** The observation's name, and so the name of the timer of passes. */
    public static final String NAME = MaterializerMeters.PASS;

    /** The key of the view's partition. */
    public static final String PARTITION = "partition";

    /** The key of the view's id. */
    public static final String VIEW = "view";

    static final String UNKNOWN = "none";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(PassObservationContext context) {
        return "materializer pass";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(PassObservationContext context) {
        var report = context.getReport();
        if (report == null) {
            return KeyValues.of(KeyValue.of(MaterializerMeters.TAG_OUTCOME, UNKNOWN),
                    KeyValue.of(MaterializerMeters.TAG_MODE, UNKNOWN), KeyValue.of(MaterializerMeters.TAG_SCOPE, UNKNOWN));
        }
        return KeyValues.of(KeyValue.of(MaterializerMeters.TAG_OUTCOME, word(report.outcome())),
                KeyValue.of(MaterializerMeters.TAG_MODE, word(report.mode())),
                KeyValue.of(MaterializerMeters.TAG_SCOPE, word(report.scope())));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(PassObservationContext context) {
        return KeyValues.of(KeyValue.of(PARTITION, context.getView().partition()),
                KeyValue.of(VIEW, context.getView().id()));
    }

    private static String word(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
