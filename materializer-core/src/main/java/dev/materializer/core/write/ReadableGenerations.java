package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.view.ViewStatus.Previous;
import org.jspecify.annotations.Nullable;

/**
 * Which generations of a view a reader may still hold: the current one, and every one a flip
 * superseded less than {@code generationGrace} ago (server time), however many flips came after it.
 * A reader reads the status, then the rows of the generation it names; that generation must stay
 * whole for the grace after it stopped being current.
 *
 * <p>The status keeps them: {@code previous} is the generation the last flip superseded, with the
 * time of that flip, and {@code earlier} those superseded before it, oldest first, each with the
 * time of the flip that superseded it. A flip carries the old {@code previous} over into
 * {@code earlier} and leaves out what had passed its grace by a server time read before the flip
 * (an earlier time than the flip's, so it leaves out less, never more). Entries whose flips fall in
 * one slice of {@value #SLICES_PER_GRACE}th of the grace become one entry — the older generation
 * with the later time — so the list holds at most about {@value #SLICES_PER_GRACE} entries whatever
 * the rate of flips; a generation so merged stays readable at most one slice longer than it must,
 * never shorter.
 *
 * <p>What it guarantees the sweep: {@link #oldestReadable} is never above a generation a reader
 * may hold, so removing the versions superseded at or before it removes nothing such a reader sees.
 * Subscriptions ({@code subscribe}) rely on the converse: while a generation is not below it, every
 * version closed after that generation is still stored, so the deltas since it can be read.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReadableGenerations {

    /** How many entries, at most, share the grace: the bound of the list in the status. */
    static final int SLICES_PER_GRACE = 16;

    private final Duration grace;

    private final long sliceMillis;

    /**
     * Creates the record of readable generations for a grace time.
     * @param grace the {@code generationGrace}: how long a superseded generation stays readable
     */
    public ReadableGenerations(Duration grace) {
        this.grace = grace;
        this.sliceMillis = Math.max(1, grace.toMillis() / SLICES_PER_GRACE);
    }

    /**
     * What a flip from a status keeps in {@code earlier}: the status's {@code earlier} and
     * {@code previous} still within their grace at a server time read before the flip, oldest first.
     * @param start the status the flip replaces
     * @param serverTimeBefore a server time read before the flip
     * @return the generations before the new {@code previous}
     */
    List<Previous> carriedOver(ViewStatus start, Instant serverTimeBefore) {
        List<Previous> kept = new ArrayList<>();
        for (Previous superseded : supersededOf(start)) {
            if (superseded.generation() == null || !withinGrace(superseded, serverTimeBefore)) {
                // Nothing is read at "no generation"; one past its grace is no reader's any more
                continue;
            }
            int last = kept.size() - 1;
            if (last >= 0 && slice(kept.get(last)) == slice(superseded)) {
                kept.set(last, new Previous(kept.get(last).generation(), superseded.flippedAt()));
            }
            else {
                kept.add(superseded);
            }
        }
        return kept;
    }

    /**
     * The oldest generation a reader may still read: that of the oldest superseded generation still
     * within its grace, else the current one; 0 when there is no versioned generation yet, or one
     * within its grace is not versioned (a flip from nothing, or from the format before versions).
     * @param status the view's status, as read at {@code serverNow}
     * @param serverNow the server's time of that read
     * @return the generation number, or 0
     */
    public long oldestReadable(ViewStatus status, Instant serverNow) {
        Generation current = status.generation();
        if (current == null || current.isLegacy()) {
            return 0;
        }
        for (Previous superseded : supersededOf(status)) {
            if (withinGrace(superseded, serverNow)) {
                Generation before = superseded.generation();
                return before == null || before.isLegacy() ? 0 : Math.min(before.number(), current.number());
            }
        }
        return current.number();
    }

    /** The superseded generations a status names, oldest first. */
    private static List<Previous> supersededOf(ViewStatus status) {
        List<Previous> superseded = new ArrayList<>(status.earlier());
        @Nullable Previous previous = status.previous();
        if (previous != null) {
            superseded.add(previous);
        }
        return superseded;
    }

    private boolean withinGrace(Previous superseded, Instant serverNow) {
        Instant flippedAt = superseded.flippedAt();
        return flippedAt != null && serverNow.isBefore(flippedAt.plus(grace));
    }

    private long slice(Previous superseded) {
        Instant flippedAt = superseded.flippedAt();
        return flippedAt == null ? Long.MIN_VALUE : Math.floorDiv(flippedAt.toEpochMilli(), sliceMillis);
    }
}
