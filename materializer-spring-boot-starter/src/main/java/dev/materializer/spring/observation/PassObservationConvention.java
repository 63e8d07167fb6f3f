package dev.materializer.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name and keys of the observation of a pass. The starter uses a bean of this type when there is
 * one, else a {@code GlobalObservationConvention} of the registry that supports
 * {@link PassObservationContext}, else {@link DefaultPassObservationConvention}.
 */
public interface PassObservationConvention extends ObservationConvention<PassObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof PassObservationContext;
    }
}
