package dev.materializer.core.write;

import java.util.List;

import dev.materializer.core.Generation;
import dev.materializer.core.GenerationPlace;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TargetHolderTest {

    private static final GenerationPlace HERE = new GenerationPlace("revenue", "acme");

    @Test
    void theDocumentWhoseGenerationWasWrittenHereHoldsTheTargetWhateverTheOrder() {
        TargetHolder.Claim holder = claim("a", 4, HERE);
        TargetHolder.Claim newcomer = claim("b", 0, null);
        TargetHolder.Claim movedIn = claim("c", 9, new GenerationPlace("other", "acme"));

        assertThat(TargetHolder.of("revenue", "acme", List.of(newcomer, movedIn, holder))).isEqualTo(holder);
        assertThat(TargetHolder.of("revenue", "acme", List.of(holder, movedIn, newcomer))).isEqualTo(holder);
    }

    @Test
    void aGenerationWrittenInAnotherPartitionOrTargetHoldsNothingHere() {
        assertThat(TargetHolder.of("revenue", "acme", List.of(claim("a", 4, new GenerationPlace("revenue", "globex")))))
            .isNull();
        assertThat(TargetHolder.of("revenue", "acme", List.of(claim("a", 4, new GenerationPlace("best", "acme")))))
            .isNull();
    }

    @Test
    void aStatusFromBeforePlacesHoldsWhenItIsTheOnlyOneWithAGeneration() {
        TargetHolder.Claim old = claim("a", 4, null);

        assertThat(TargetHolder.of("revenue", "acme", List.of(old, claim("b", 0, null)))).isEqualTo(old);
        assertThat(TargetHolder.of("revenue", "acme", List.of(old, claim("b", 2, null)))).as("two of them: nobody")
            .isNull();
        TargetHolder.Claim placed = claim("c", 7, HERE);
        assertThat(TargetHolder.of("revenue", "acme", List.of(old, placed))).as("a recorded place comes first")
            .isEqualTo(placed);
    }

    @Test
    void noGenerationOrTwoWrittenHereMeansNobodyHoldsIt() {
        assertThat(TargetHolder.of("revenue", "acme", List.of(claim("a", 0, null), claim("b", 0, null)))).isNull();
        assertThat(TargetHolder.of("revenue", "acme", List.of(claim("a", 3, HERE), claim("b", 5, HERE)))).isNull();
        assertThat(TargetHolder.of("revenue", "acme", List.of())).isNull();
    }

    /** A claim; generation 0 for none. */
    private static TargetHolder.Claim claim(String id, long generation, GenerationPlace place) {
        return new TargetHolder.Claim(new BsonString(id), generation == 0 ? null : Generation.of(generation), place);
    }
}
