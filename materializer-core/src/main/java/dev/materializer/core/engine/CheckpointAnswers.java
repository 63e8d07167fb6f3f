package dev.materializer.core.engine;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.cluster.OwnedPartitions;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.stream.Checkpoint;
import dev.materializer.core.stream.CheckpointStore;
import dev.materializer.core.stream.CollectionStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the saved checkpoints answer for, asked at the two moments a stream's word is not enough: its
 * first open, and a take-over. Whatever a checkpoint does not answer for catches up.
 *
 * <p>What it guarantees: a partition is answered for only by a checkpoint whose writer owned it among
 * the live set it saved, with nothing of it pending, at or after the position asked about (the one
 * resumed from, the ones alongside it, or, at a take-over, where this instance's stream started). By
 * the checkpoint invariant every event of it before that position was then applied by a completed
 * pass. Everything else — a checkpoint that cannot be ordered, one of an older engine, a read that
 * fails — answers for nothing, and the partition's views run (fail safe).
 *
 * <p>Threads: {@link #atFirstOpen} on a stream's thread, {@link #atTakeOver} on the thread of the
 * beat that gains partitions; state lives in {@link HeardChanges} and the scheduler, both thread-safe.
 */
final class CheckpointAnswers {

    private static final Logger log = LoggerFactory.getLogger(CheckpointAnswers.class);

    private final ViewRegistry registry;

    private final HeardChanges heard;

    private final PassScheduler scheduler;

    private final CheckpointStore checkpoints;

    private final Predicate<String> owns;

    CheckpointAnswers(ViewRegistry registry, HeardChanges heard, PassScheduler scheduler, CheckpointStore checkpoints,
            Predicate<String> owns) {
        this.registry = registry;
        this.heard = heard;
        this.scheduler = scheduler;
        this.checkpoints = checkpoints;
        this.owns = owns;
    }

    /**
     * At the first open a feed hears of for a collection: the partitions a checkpoint answers for are
     * told to {@link HeardChanges}; the owned others catch up, every view reading the collection where
     * the checkpoint lists the partition pending.
     * @param collection the collection
     * @param from the checkpoint the stream resumed from (with the ones alongside it), or none
     */
    void atFirstOpen(String collection, Checkpoint from) {
        // The first open this feed hears of, resumed from a checkpoint (also after tries whose cursor
        // failed before it opened) or started from now without one: the checkpoint answers for some
        // partitions; the owned others catch up. Views never run are left out: they run through their
        // rebalance anyway.
        Set<String> caughtUp = new TreeSet<>();
        // The partitions, owned or not, whose events before this position a checkpoint answers for
        Set<String> answered = new HashSet<>();
        for (String partition : registry.partitionsReading(collection)) {
            if (answersFor(from, partition)) {
                answered.add(partition);
            }
        }
        heard.answered(collection, answered, registry.viewsReading(collection));
        registry.materializedViewsReading(collection).forEach((partition, viewIds) -> {
            if (!owns.test(partition) || answered.contains(partition)) {
                return;
            }
            if (from.pending().contains(partition)) {
                scheduler.catchUp(partition, everyViewReading(collection));
            }
            else {
                caughtUp.add(partition);
                DirtySources marks = new DirtySources();
                marks.add(collection, viewIds);
                scheduler.catchUp(partition, marks);
            }
        });
        if (from.token() != null && !caughtUp.isEmpty()) {
            log.info("The checkpoint of {} by {} does not answer for {} partition(s) this instance owns: they catch up",
                    collection, from.writer() == null ? "an older engine" : "instance " + from.writer(), caughtUp.size());
        }
    }

    /**
     * Before a take-over: the partitions gained that no checkpoint answered for when their streams
     * first opened (a stream started from now, in a new cluster; a checkpoint saved before its writer
     * took them) are answered for by a checkpoint saved since, at or after where the stream started
     * ({@link CollectionStream#heardFrom}), by their owner then, with nothing of them pending: every
     * event of them before it was applied, and this instance's stream heard every one after it. One
     * read of the checkpoints per collection the gained partitions still need; a failure answers for
     * nothing more (the views run).
     * @param gained the partitions this instance takes over
     * @param streams the open streams, by collection
     */
    void atTakeOver(Set<String> gained, Map<String, CollectionStream> streams) {
        for (Map.Entry<String, CollectionStream> entry : streams.entrySet()) {
            String collection = entry.getKey();
            // The partitions first, then where the stream started: a stream started anew in between is ignored
            HeardChanges.Unanswered unanswered = heard.unanswered(collection);
            Set<String> wanted = new HashSet<>(gained);
            wanted.retainAll(unanswered.partitions());
            Checkpoint start = entry.getValue().heardFrom();
            if (wanted.isEmpty() || start == null) {
                continue;
            }
            Set<String> answered = new HashSet<>();
            try {
                for (Checkpoint saved : checkpoints.all(collection)) {
                    if (saved.writer() == null || !saved.coversWhatPrecedes(start)) {
                        continue;
                    }
                    for (String partition : wanted) {
                        if (writerOwned(saved, partition) && !saved.pending().contains(partition)) {
                            answered.add(partition);
                        }
                    }
                }
            }
            catch (MongoException ex) {
                log.warn("The checkpoints of {} could not be read for a take-over; its partitions run whole: {}",
                        collection, ex.getMessage());
                continue;
            }
            heard.answeredLater(collection, unanswered, answered);
            log.debug("Checkpoints of {} saved since its stream started answer for {} of {} partition(s) taken over",
                    collection, answered.size(), wanted.size());
        }
    }

    /** Marks of every view reading a collection. */
    static DirtySources everyViewReading(String collection) {
        DirtySources marks = new DirtySources();
        marks.addAll(collection);
        return marks;
    }

    /**
     * Whether the checkpoint answers for the partition's events before its position: its writer
     * owned the partition when it saved, with nothing of it pending; or another instance's checkpoint
     * at or after that position ({@link Checkpoint#alongside()}) was saved by the partition's owner
     * then, with nothing of it pending. The second holds for a partition pending in the first too: the
     * later owner applied every event of it before its own position, the pending ones among them (a
     * restart under its own id after the others took its partitions over and ran them).
     */
    private static boolean answersFor(Checkpoint checkpoint, String partition) {
        if (writerOwned(checkpoint, partition) && !checkpoint.pending().contains(partition)) {
            return true;
        }
        for (Checkpoint other : checkpoint.alongside()) {
            if (writerOwned(other, partition) && !other.pending().contains(partition)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the checkpoint's writer owned the partition among the live set it saved. */
    private static boolean writerOwned(Checkpoint checkpoint, String partition) {
        String writer = checkpoint.writer();
        return checkpoint.token() != null && writer != null
                && OwnedPartitions.owner(writer, partition, checkpoint.live());
    }

}
