package dev.materializer.core.engine;

import dev.materializer.core.MaterializerOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.EngineClock;
import dev.materializer.core.write.LeftPlaces;
import dev.materializer.core.write.ViewRunner;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the rows views left in their targets (deleted, moved to another partition, given another
 * target) once no reader can still hold them. Each departure is noted in {@link LeftPlaces}, in
 * MongoDB; then, {@code generationGrace} after a departure this instance heard and at every round
 * (a quarter of the grace, at least {@code rewatch}), each place that has had its grace and whose
 * partition this instance owns goes to the partition's lane, where the rows are removed unless a view
 * of the partition writes the target again (its first pass replaces what is not its own), and the
 * entry goes.
 *
 * <p>What it guarantees: the rows of a place a view left are removed by whichever instance owns the
 * partition, whichever instance heard the departure, whatever restarts come between — never within
 * the grace of the departure (host time of the instance that noted it), and never while a view of the
 * partition writes the target. A failure only delays it to the next round.
 *
 * <p>Threads: {@link #afterGrace} on the views stream's thread or the start's; rounds fire on the
 * clock's thread and only queue: the ledger is read in a lane of its own ({@value #HOUSEKEEPING_LANE}
 * names no partition), the removals run in the partitions' lanes.
 */
final class LeftRowsCleanup implements ViewCatalog.LeftRowsRemoval {

    private static final Logger log = LoggerFactory.getLogger(LeftRowsCleanup.class);

    /** The lane the ledger is read in: no partition has an empty name. */
    static final String HOUSEKEEPING_LANE = "";

    private final LeftPlaces places;

    private final EngineClock clock;

    private final PartitionLanes lanes;

    private final ViewRegistry registry;

    private final Predicate<String> owns;

    private final ViewRunner runner;

    private final BooleanSupplier running;

    private final Duration grace;

    private final Duration round;

    private EngineClock.@Nullable Timer timer;

    private boolean closed;

    LeftRowsCleanup(LeftPlaces places, EngineClock clock, PartitionLanes lanes, ViewRegistry registry,
            Predicate<String> owns, ViewRunner runner, BooleanSupplier running,
            MaterializerOptions options) {
        this.places = places;
        this.clock = clock;
        this.lanes = lanes;
        this.registry = registry;
        this.owns = owns;
        this.runner = runner;
        this.running = running;
        this.grace = options.generationGrace();
        Duration quarter = options.generationGrace().dividedBy(4);
        this.round = quarter.compareTo(options.rewatch()) < 0 ? options.rewatch() : quarter;
    }

    @Override
    public void afterGrace(String partition, String target) {
        try {
            places.note(partition, target, clock.now());
        }
        catch (MongoException ex) {
            log.warn("That a view left target {} of partition {} was not recorded ({}); its rows stay until a view"
                    + " leaves that place again", target, partition, ex.getMessage());
            return;
        }
        clock.schedule(grace, this::queueRound);
    }

    /** Arms the rounds. */
    synchronized void start() {
        if (!closed && timer == null) {
            timer = clock.schedule(round, this::tick);
        }
    }

    /** Stops the rounds; what is noted stays for the next start, or another instance. */
    synchronized void close() {
        closed = true;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void tick() {
        synchronized (this) {
            if (closed) {
                return;
            }
            timer = clock.schedule(round, this::tick);
        }
        queueRound();
    }

    private void queueRound() {
        if (running.getAsBoolean()) {
            lanes.submit(HOUSEKEEPING_LANE, () -> {
                removeDue();
                return null;
            });
        }
    }

    /** Hands each place due and owned here to its partition's lane. */
    private void removeDue() {
        List<LeftPlaces.Place> noted;
        try {
            noted = places.all();
        }
        catch (MongoException ex) {
            log.debug("The places views left were not read: {}", ex.getMessage());
            return;
        }
        Instant now = clock.now();
        for (LeftPlaces.Place place : noted) {
            if (!now.isBefore(place.leftAt().plus(grace)) && owns.test(place.partition())) {
                lanes.submit(place.partition(), () -> {
                    remove(place);
                    return null;
                });
            }
        }
    }

    private void remove(LeftPlaces.Place place) {
        String partition = place.partition();
        String target = place.target();
        try {
            if (registry.views(partition).stream().noneMatch(view -> view.targetCollection().equals(target))) {
                runner.removeLeftRows(partition, target);
            }
            // Else a view of the partition writes it again: the rows there are its, or its first pass replaces them
            places.done(place);
        }
        catch (MongoException ex) {
            log.warn("The rows partition {} left in {} were not removed ({}); the next round tries again", partition,
                    target, ex.getMessage());
        }
        catch (RuntimeException ex) {
            // A target name MongoDB refuses (an invalid view named it): there is nothing of the engine's there
            log.debug("The rows partition {} left in {} were not looked for: {}", partition, target, ex.toString());
            places.done(place);
        }
    }
}
