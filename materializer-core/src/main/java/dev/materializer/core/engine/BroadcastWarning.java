package dev.materializer.core.engine;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import dev.materializer.core.time.Durations;
import dev.materializer.core.EngineClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says, at WARN and once per source for the life of the engine, that a source's events often name no
 * partition (broadcasts, see {@link MaterializerListener#onBroadcastEvent}), and what would let them
 * name one: pre-images on the collection, or a storage source whose ids carry the partition.
 *
 * <p>The threshold: {@value #THRESHOLD} broadcasts of one source within {@link #WINDOW} (a sliding
 * window on the engine's clock), counting only those that reached two partitions or more — with one
 * partition reading the source, naming it would save nothing. An absolute rate rather than a share
 * of the source's events, because the cost is absolute: each broadcast runs a pass in every
 * partition reading the source, so at this rate each of them runs up to a pass a second more than
 * the changes of its own documents call for (the debounce folds only broadcasts that come close
 * together), while a quiet collection whose few events are mostly deletes costs little, and a share
 * would warn of it.
 *
 * <p>Memory: per source, at most {@value #THRESHOLD} instants until it warns, none after.
 *
 * <p>Threads: {@link #heard} runs on the stream threads (one per source); each source's window is
 * guarded by its own monitor, so the sources do not contend.
 */
final class BroadcastWarning {

    private static final Logger log = LoggerFactory.getLogger(BroadcastWarning.class);

    /** Broadcasts of one source within {@link #WINDOW} that make it warn. */
    static final int THRESHOLD = 100;

    /** The span of the sliding window. */
    static final Duration WINDOW = Duration.ofMinutes(1);

    private final EngineClock clock;

    private final Predicate<String> optionWouldEnable;

    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    /**
     * Creates the warning, which has said nothing yet.
     * @param clock the engine's clock
     * @param optionWouldEnable whether {@code materializer.enable-pre-images} (off now) would turn
     *     pre-images on for the source, so the warning names the option rather than only the command
     */
    BroadcastWarning(EngineClock clock, Predicate<String> optionWouldEnable) {
        this.clock = clock;
        this.optionWouldEnable = optionWouldEnable;
    }

    /**
     * A broadcast of the source, which reached these many partitions; warns when it is the
     * {@value #THRESHOLD}th within the window, the first time only.
     * @param source the source collection
     * @param partitions how many partitions the event reached (before a delete's narrowing)
     */
    void heard(String source, int partitions) {
        if (partitions < 2) {
            return;
        }
        Window window = windows.computeIfAbsent(source, key -> new Window());
        int count;
        synchronized (window) {
            if (window.warned) {
                return;
            }
            Instant now = clock.now();
            Instant since = now.minus(WINDOW);
            while (!window.times.isEmpty() && !window.times.peekFirst().isAfter(since)) {
                window.times.pollFirst();
            }
            window.times.addLast(now);
            count = window.times.size();
            if (count < THRESHOLD) {
                return;
            }
            window.warned = true;
            window.times.clear();
        }
        log.warn("Events of {} often name no partition: {} within {}, the last reaching {} partitions. Each reaches every"
                + " partition reading {}: a pass in each (a delete read only by views of one row per document costs a"
                + " query first, and a pass where its row is). For them to name it, {}; or make {} a storage source"
                + " whose ids carry the partition (materializer.storage-sources). Logged once per source; the meter"
                + " materializer.routing.broadcast counts them", source, count, Durations.text(WINDOW), partitions,
                source, preImagesRemedy(source), source);
    }

    private String preImagesRemedy(String source) {
        String byHand = "collMod " + source + " {changeStreamPreAndPostImages: {enabled: true}}";
        if (optionWouldEnable.test(source)) {
            return "turn on pre-images: set materializer.enable-pre-images: true (MaterializerOptions.enablePreImages),"
                    + " and the engine turns them on at its next start, or run " + byHand + " and restart the engine";
        }
        return "turn on pre-images: run " + byHand + " and restart the engine (materializer.enable-pre-images turns"
                + " them on only for sources whose key-scoped views need a document's old key)";
    }

    /** The recent broadcasts of one source, oldest first; guarded by its own monitor. */
    private static final class Window {

        private final ArrayDeque<Instant> times = new ArrayDeque<>();

        private boolean warned;
    }
}
