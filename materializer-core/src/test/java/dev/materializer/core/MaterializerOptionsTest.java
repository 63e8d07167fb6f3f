package dev.materializer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import dev.materializer.core.time.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MaterializerOptionsTest {

    @Test
    void theDefaultsAreThoseOfTheReferenceMaterializer() {
        MaterializerOptions options = MaterializerOptions.defaults();

        assertThat(options.viewsCollection()).isEqualTo("_aggregations");
        assertThat(options.partitionField()).isEqualTo("_part");
        assertThat(options.statusField()).isEqualTo("_materializerStatus");
        assertThat(options.debounce()).isEqualTo(Duration.ofMillis(100));
        assertThat(options.rewatch()).isEqualTo(Duration.ofSeconds(1));
        assertThat(options.maxTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.maxRows()).isEqualTo(100_000);
        assertThat(options.maxTransactionRows()).isEqualTo(1_000);
        assertThat(options.generationGrace()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.passLease()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void theDefaultsOfTheEngineItselfAreSet() {
        MaterializerOptions options = MaterializerOptions.defaults();

        assertThat(options.checkpointsCollection()).isEqualTo("_materializerCheckpoints");
        assertThat(options.maxBackoff()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.partitionLease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.maxConcurrentPasses()).isEqualTo(4);
        assertThat(options.reconcileInterval()).isEqualTo(Duration.ofHours(6));
        assertThat(options.reconcileMaxPerSecond()).isEqualTo(2.0);
        assertThat(options.storageSources()).isEmpty();
        assertThat(options.targetId()).isSameAs(PartitionTargetId.INSTANCE);
        assertThat(options.instanceId()).isNotBlank();
        assertThat(options.clock()).isNull();
        assertThat(options.listener()).isSameAs(MaterializerListener.NONE);
    }

    @Test
    void eachBuildHasItsOwnInstanceId() {
        assertThat(MaterializerOptions.defaults().instanceId()).isNotEqualTo(MaterializerOptions.defaults().instanceId());
    }

    @Test
    void everyOptionCanBeSetAndSurvivesToBuilder() {
        ManualClock clock = new ManualClock();
        MaterializerOptions options = MaterializerOptions.builder()
            .viewsCollection("views")
            .partitionField("tenant")
            .statusField("status")
            .checkpointsCollection("checkpoints")
            .debounce(Duration.ZERO)
            .rewatch(Duration.ofMillis(5))
            .maxBackoff(Duration.ofSeconds(2))
            .maxTime(Duration.ofMinutes(2))
            .maxRows(50)
            .maxTransactionRows(0)
            .generationGrace(Duration.ZERO)
            .passLease(Duration.ofSeconds(5))
            .partitionLease(Duration.ofSeconds(7))
            .maxConcurrentPasses(16)
            .instanceId("instance-a")
            .clock(clock)
            .build();

        assertThat(options.toBuilder().build()).isEqualTo(options);
        assertThat(options.viewsCollection()).isEqualTo("views");
        assertThat(options.partitionField()).isEqualTo("tenant");
        assertThat(options.statusField()).isEqualTo("status");
        assertThat(options.checkpointsCollection()).isEqualTo("checkpoints");
        assertThat(options.debounce()).isZero();
        assertThat(options.rewatch()).isEqualTo(Duration.ofMillis(5));
        assertThat(options.maxBackoff()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.maxTime()).isEqualTo(Duration.ofMinutes(2));
        assertThat(options.maxRows()).isEqualTo(50);
        assertThat(options.maxTransactionRows()).isZero();
        assertThat(options.generationGrace()).isZero();
        assertThat(options.passLease()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.partitionLease()).isEqualTo(Duration.ofSeconds(7));
        assertThat(options.maxConcurrentPasses()).isEqualTo(16);
        assertThat(options.instanceId()).isEqualTo("instance-a");
        assertThat(options.clock()).isSameAs(clock);
    }

    @Test
    void aSmallMaxRowsAloneIsAccepted() {
        // The default maxTransactionRows is above it: every result then fits one transaction
        assertThatCode(() -> MaterializerOptions.builder().maxRows(500).build()).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("boundaries")
    void theBoundsOfEachRangeAreAccepted(String why, UnaryOperator<MaterializerOptions.Builder> change) {
        assertThatCode(() -> change.apply(MaterializerOptions.builder()).build()).doesNotThrowAnyException();
    }

    static Stream<Arguments> boundaries() {
        return Stream.of(
                valid("debounce 0", builder -> builder.debounce(Duration.ZERO)),
                valid("debounce 1 h", builder -> builder.debounce(Duration.ofHours(1))),
                valid("rewatch 1 ms", builder -> builder.rewatch(Duration.ofMillis(1))),
                valid("rewatch equal to maxBackoff", builder -> builder.rewatch(Duration.ofSeconds(30))),
                valid("maxTime 1 ms", builder -> builder.maxTime(Duration.ofMillis(1))),
                valid("maxTime 24 h", builder -> builder.maxTime(Duration.ofHours(24))),
                valid("maxRows 1", builder -> builder.maxRows(1)),
                valid("maxRows 10 000 000", builder -> builder.maxRows(10_000_000)),
                valid("maxTransactionRows 0", builder -> builder.maxTransactionRows(0)),
                valid("maxTransactionRows above maxRows", builder -> builder.maxRows(10).maxTransactionRows(20)),
                valid("generationGrace 0", builder -> builder.generationGrace(Duration.ZERO)),
                valid("generationGrace 1 d", builder -> builder.generationGrace(Duration.ofDays(1))),
                valid("passLease 1 s", builder -> builder.passLease(Duration.ofSeconds(1))),
                valid("partitionLease 1 h", builder -> builder.partitionLease(Duration.ofHours(1))),
                valid("maxConcurrentPasses 1", builder -> builder.maxConcurrentPasses(1)),
                valid("maxConcurrentPasses 256", builder -> builder.maxConcurrentPasses(256)),
                valid("the reconciler off", builder -> builder.reconcileInterval(Duration.ZERO)),
                valid("reconcileMaxPerSecond 0.01", builder -> builder.reconcileMaxPerSecond(0.01)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidOptions")
    void anInvalidOptionFailsWithAMessageNamingItAndTheAllowedRange(String why,
            UnaryOperator<MaterializerOptions.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(MaterializerOptions.builder()).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(message);
    }

    static Stream<Arguments> invalidOptions() {
        String collection = " must be a collection name (not blank, no '$' or NUL, not starting with 'system.'), was ";
        String field = " must be a top-level field name (not blank, not '_id', no '.', not starting with '$'), was ";
        return Stream.of(
                invalid("a blank viewsCollection", builder -> builder.viewsCollection(" "), "viewsCollection" + collection + "' '"),
                invalid("a viewsCollection with a dollar", builder -> builder.viewsCollection("a$b"),
                        "viewsCollection" + collection + "'a$b'"),
                invalid("a system viewsCollection", builder -> builder.viewsCollection("system.views"),
                        "viewsCollection" + collection + "'system.views'"),
                invalid("a null viewsCollection", builder -> builder.viewsCollection(null), "viewsCollection" + collection + "'null'"),
                invalid("an empty checkpointsCollection", builder -> builder.checkpointsCollection(""),
                        "checkpointsCollection" + collection + "''"),
                invalid("a dotted partitionField", builder -> builder.partitionField("a.b"), "partitionField" + field + "'a.b'"),
                invalid("a dollar partitionField", builder -> builder.partitionField("$part"), "partitionField" + field + "'$part'"),
                invalid("an _id partitionField", builder -> builder.partitionField("_id"), "partitionField" + field + "'_id'"),
                invalid("a blank statusField", builder -> builder.statusField(""), "statusField" + field + "''"),
                invalid("an _id statusField", builder -> builder.statusField("_id"), "statusField" + field + "'_id'"),
                invalid("the same partition and status field", builder -> builder.statusField("_part"),
                        "partitionField and statusField must differ, both were '_part'"),
                invalid("the same views and checkpoints collection", builder -> builder.checkpointsCollection("_aggregations"),
                        "viewsCollection and checkpointsCollection must differ, both were '_aggregations'"),
                invalid("a negative debounce", builder -> builder.debounce(Duration.ofMillis(-1)),
                        "debounce must be between PT0S and PT1H, was PT-0.001S"),
                invalid("a debounce over an hour", builder -> builder.debounce(Duration.ofMinutes(61)),
                        "debounce must be between PT0S and PT1H, was PT1H1M"),
                invalid("a null debounce", builder -> builder.debounce(null), "debounce must be between PT0S and PT1H, was null"),
                invalid("a zero rewatch", builder -> builder.rewatch(Duration.ZERO),
                        "rewatch must be between PT0.001S and PT1H, was PT0S"),
                invalid("a maxBackoff below rewatch", builder -> builder.rewatch(Duration.ofSeconds(5)).maxBackoff(Duration.ofSeconds(4)),
                        "maxBackoff must be between PT5S and PT1H, was PT4S"),
                invalid("a zero maxTime", builder -> builder.maxTime(Duration.ZERO),
                        "maxTime must be between PT0.001S and PT24H, was PT0S"),
                invalid("a maxTime over a day", builder -> builder.maxTime(Duration.ofHours(25)),
                        "maxTime must be between PT0.001S and PT24H, was PT25H"),
                invalid("a zero maxRows", builder -> builder.maxRows(0), "maxRows must be between 1 and 10000000, was 0"),
                invalid("a maxRows over the limit", builder -> builder.maxRows(10_000_001),
                        "maxRows must be between 1 and 10000000, was 10000001"),
                invalid("a negative maxTransactionRows", builder -> builder.maxTransactionRows(-1),
                        "maxTransactionRows must be between 0 and 10000000, was -1"),
                invalid("a maxTransactionRows over the limit", builder -> builder.maxTransactionRows(10_000_001),
                        "maxTransactionRows must be between 0 and 10000000, was 10000001"),
                invalid("a negative generationGrace", builder -> builder.generationGrace(Duration.ofSeconds(-1)),
                        "generationGrace must be between PT0S and PT24H, was PT-1S"),
                invalid("a generationGrace over a day", builder -> builder.generationGrace(Duration.ofHours(25)),
                        "generationGrace must be between PT0S and PT24H, was PT25H"),
                invalid("a passLease under a second", builder -> builder.passLease(Duration.ofMillis(999)),
                        "passLease must be between PT1S and PT24H, was PT0.999S"),
                invalid("a passLease over a day", builder -> builder.passLease(Duration.ofHours(25)),
                        "passLease must be between PT1S and PT24H, was PT25H"),
                invalid("a partitionLease under a second", builder -> builder.partitionLease(Duration.ZERO),
                        "partitionLease must be between PT1S and PT1H, was PT0S"),
                invalid("a zero maxConcurrentPasses", builder -> builder.maxConcurrentPasses(0),
                        "maxConcurrentPasses must be between 1 and 256, was 0"),
                invalid("a maxConcurrentPasses over 256", builder -> builder.maxConcurrentPasses(257),
                        "maxConcurrentPasses must be between 1 and 256, was 257"),
                invalid("a negative reconcileInterval", builder -> builder.reconcileInterval(Duration.ofSeconds(-1)),
                        "reconcileInterval must be between PT0S and PT720H, was PT-1S"),
                invalid("a zero reconcileMaxPerSecond", builder -> builder.reconcileMaxPerSecond(0),
                        "reconcileMaxPerSecond must be between 0.01 and 1000, was 0.0"),
                invalid("a NaN reconcileMaxPerSecond", builder -> builder.reconcileMaxPerSecond(Double.NaN),
                        "reconcileMaxPerSecond must be between 0.01 and 1000, was NaN"),
                invalid("a blank instanceId", builder -> builder.instanceId(" "), "instanceId must be a non-blank text"),
                invalid("a storage source with a dollar", builder -> builder.storageSource("a$", storage -> storage),
                        "storageSources key" + collection + "'a$'"));
    }

    private static Arguments valid(String why, UnaryOperator<MaterializerOptions.Builder> change) {
        return Arguments.of(why, change);
    }

    private static Arguments invalid(String why, UnaryOperator<MaterializerOptions.Builder> change, String message) {
        return Arguments.of(why, change, message);
    }
}
