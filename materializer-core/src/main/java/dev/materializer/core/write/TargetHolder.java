package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.Generation;
import dev.materializer.core.GenerationPlace;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Which view document holds a target in a partition, decided from the view documents alone, so
 * every instance, before and after a restart, decides alike: among the documents naming that
 * target and partition, the one whose status names a generation written there (its
 * {@link GenerationPlace}). A status from before places were recorded has none: when no document
 * has the place, the one document with a generation and no place holds it. Otherwise — none, or
 * more than one qualifies — nobody holds it.
 *
 * <p>The holder's generation is what the views reading the target see of it; a view that names a
 * target someone else holds does not run there (it would take the holder's rows for its own).
 *
 * <p>Stateless.
 */
public final class TargetHolder {

    private TargetHolder() {
    }

    /**
     * Why a view does not run: another view holds its target in its partition.
     * @param view the view refused
     * @param holder the text of the holder's {@code _id}
     * @return the error its status says
     */
    public static String refusal(ViewDefinition view, String holder) {
        return "target '" + view.targetCollection() + "' of partition '" + view.partition()
                + "' holds the rows of view '" + holder + "': view '" + view.key().id()
                + "' does not run until it has a targetCollection of its own (or view '" + holder
                + "' is deleted or given another target)";
    }

    /**
     * One view document naming the target in the partition.
     * @param id its {@code _id}
     * @param generation the generation its status names, or null
     * @param place where that generation was written, or null when not recorded
     */
    record Claim(BsonValue id, @Nullable Generation generation, @Nullable GenerationPlace place) {
    }

    /**
     * The holder among the claims on one target in one partition.
     * @return the holder, or null when none qualifies or more than one does
     */
    static @Nullable Claim of(String target, String partition, List<Claim> claims) {
        List<Claim> placed = new ArrayList<>();
        List<Claim> unplaced = new ArrayList<>();
        for (Claim claim : claims) {
            if (claim.generation() == null) {
                continue;
            }
            if (claim.place() == null) {
                unplaced.add(claim);
            }
            else if (claim.place().equals(new GenerationPlace(target, partition))) {
                placed.add(claim);
            }
        }
        if (!placed.isEmpty()) {
            return placed.size() == 1 ? placed.get(0) : null;
        }
        return unplaced.size() == 1 ? unplaced.get(0) : null;
    }
}
