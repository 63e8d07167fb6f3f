package dev.materializer.sample.load;

import java.time.Duration;
import java.util.Map;

/**
 * What a load run did.
 *
 * @param tenants tenants installed
 * @param ordersCreated orders created
 * @param creating how long creating them took
 * @param updatesSent updates sent
 * @param updating how long the stream of updates took
 * @param errors requests that failed
 * @param viewStates at the end, how many views of the load's tenants are in each state
 *     ({@code pending} before a first run)
 */
public record LoadReport(int tenants, long ordersCreated, Duration creating, long updatesSent, Duration updating,
        long errors, Map<String, Long> viewStates) {

    /** Copies the states so the record stays immutable. */
    public LoadReport {
        viewStates = Map.copyOf(viewStates);
    }

    /** Orders created per second. */
    public double creationRate() {
        return perSecond(this.ordersCreated, this.creating);
    }

    /** Updates sent per second. */
    public double updateRate() {
        return perSecond(this.updatesSent, this.updating);
    }

    private static double perSecond(long count, Duration took) {
        return took.isZero() ? 0 : count * 1e9 / took.toNanos();
    }
}
