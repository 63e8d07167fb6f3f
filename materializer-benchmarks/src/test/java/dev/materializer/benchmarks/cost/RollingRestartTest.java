package dev.materializer.benchmarks.cost;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.materializer.benchmarks.cost.RollingRestartRun.Logged;
import dev.materializer.benchmarks.cost.RollingRestartRun.Stage;
import dev.materializer.benchmarks.cost.RollingRestartRun.Writes;
import dev.materializer.core.PassScope;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cost report's rolling restart at a tiny size: three tenants, three instances, every variant
 * runs every step to its end and the rows are printed; and the options that choose it. The pass
 * counts are what the report measures, not asserted here; but the variants whose writes are heard
 * and not applied at the stop must see them applied by the take-over, key-scoped where the view's
 * shape allows (at T = 3 every stopped instance owns a written tenant).
 */
class RollingRestartTest {

    private static final int TENANTS = 3;

    @Test
    void aRollingRestartOfThreeInstancesOverThreeTenantsRunsEveryVariantAndIsReported() throws Exception {
        CostReport.Settings settings = CostReport.Settings.parse("--only", "rolling", "--rolling-tenants",
                String.valueOf(TENANTS));

        CostReport.Run run = CostReport.measure(settings, new PrintStream(OutputStream.nullOutputStream()));

        assertThat(run.results()).as("--only rolling runs no per-change scenario").isEmpty();
        assertThat(run.rollingRestarts()).hasSize(1);
        RollingRestartRun.Result result = run.rollingRestarts().get(0);
        assertThat(result.error()).isNull();
        assertThat(result.start()).isNotNull();
        assertThat(result.start().settled()).isTrue();
        assertThat(result.start().passes()).as("every view ran once at the start at least")
            .isGreaterThanOrEqualTo(3L * TENANTS);
        assertThat(result.checkpointWait()).isTrue();
        assertThat(result.variants()).extracting(variant -> variant.ids() + " " + variant.writes())
            .containsExactly("SAME NONE", "SAME NONE", "SAME NONE", "SAME WHILE_DOWN", "NEW NONE", "NEW WHILE_DOWN",
                    "SAME UNAPPLIED", "NEW UNAPPLIED");
        assertThat(result.variants()).extracting(RollingRestartRun.Variant::checkpointed)
            .containsExactly(false, true, true, true, true, true, true, true);
        assertThat(result.variants().get(1).openedFromNow()).as("every stream opened before the first checkpoint")
            .isEqualTo(3);
        assertThat(result.variants().subList(2, 8)).allSatisfy(variant -> assertThat(variant.openedFromNow()).isZero());
        assertThat(result.warmUp()).isNotNull();
        assertThat(result.warmUp().checkpointed()).as("every instance saved a position of orders").isTrue();
        for (RollingRestartRun.Variant variant : result.variants()) {
            assertThat(variant.settled()).as(variant.name()).isTrue();
            assertThat(variant.steps()).extracting(RollingRestartRun.Step::stopped).hasSize(3).doesNotHaveDuplicates();
            assertThat(variant.commands()).as("the heartbeats at least").isPositive();
        }
        assertThat(result.variants().get(0).steps()).extracting(step -> step.stopped() + "→" + step.startedAs())
            .containsExactly("a→a", "b→b", "c→c");
        assertThat(result.variants().get(4).steps()).extracting(step -> step.stopped() + "→" + step.startedAs())
            .containsExactly("a→d", "b→e", "c→f");
        RollingRestartRun.Variant withWrites = result.variants().get(3);
        assertThat(withWrites.steps()).allSatisfy(step -> assertThat(step.written()).hasSize(TENANTS));
        assertThat(withWrites.viewsTouched()).hasSize(3 * TENANTS);
        assertThat(withWrites.passes()).as("the writes ran the views they touched")
            .extracting(logged -> logged.report().view().id()).containsAll(withWrites.viewsTouched());
        assertThat(result.variants().get(0).steps()).allSatisfy(step -> assertThat(step.written()).isEmpty());
        for (RollingRestartRun.Variant unapplied : result.variants().subList(6, 8)) {
            theTakeOverAppliedWhatTheStoppedInstanceHeard(unapplied);
        }
        assertThat(result.variants().get(7).steps()).extracting(step -> step.stopped() + "→" + step.startedAs())
            .containsExactly("g→j", "h→k", "i→l");

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        CostTable.print(run, new PrintStream(printed, true, StandardCharsets.UTF_8));
        String table = printed.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("| a rolling restart of 3 instances over 3 tenants × 3 views")
            .contains(RollingTable.GOAL)
            .contains("### A rolling restart")
            .contains("| 3 | the same id | no; before any event on `orders` (no checkpoint of it) |")
            .contains("| 3 | the same id | no; 3 of 3 instances' streams of `orders` opened without a checkpoint |")
            .contains("| 3 | the same id | no |")
            .contains("| 3 | a new id | yes |")
            .contains("| 3 | the same id | heard, not applied, at the stop |")
            .contains("| 3 | a new id | heard, not applied, at the stop |")
            .contains("before the stop, heard by every instance; 0 passes before the close")
            .contains("a → a", "c → f")
            .doesNotContain("### Per scenario")
            .doesNotContain("a wait ran out");
    }

    /**
     * The writes were heard by every instance and not applied before the stop; the take-over ran
     * every view they touched, and each of a group-by or a per-document view for the keys written
     * (a take-over that ran them whole, as before it kept the keys heard, fails here); the summary
     * groups on a constant, so it runs whole.
     */
    private static void theTakeOverAppliedWhatTheStoppedInstanceHeard(RollingRestartRun.Variant variant) {
        assertThat(variant.writes()).isEqualTo(Writes.UNAPPLIED);
        assertThat(variant.steps()).allSatisfy(step -> {
            assertThat(step.written()).hasSize(TENANTS);
            assertThat(step.beforeStop()).as("no pass before the stop: the clock stood").isEmpty();
        });
        assertThat(variant.steps()).as("every stopped instance owned a written tenant")
            .allSatisfy(step -> assertThat(step.writtenOfStopped()).isPositive());
        List<Logged> takeOvers = variant.passesIn(Stage.TAKEOVER);
        assertThat(takeOvers).as("the take-overs ran the views the writes touched")
            .extracting(logged -> logged.report().view().id()).containsAll(variant.viewsTouched());
        assertThat(takeOvers).filteredOn(logged -> RollingRestart.Definition.of(logged.report().view().id())
                != RollingRestart.Definition.SUMMARY)
            .isNotEmpty()
            .allSatisfy(logged -> assertThat(logged.report().scope()).as(logged.report().view().id() + ": "
                    + logged.report().scopeNote()).isEqualTo(PassScope.KEYS));
        assertThat(variant.passesIn(Stage.WRITES)).isEmpty();
    }

    @Test
    void theRollingRestartsTenantsComeFromTheCommandLine() {
        assertThat(CostReport.Settings.parse().rollingTenants()).containsExactly(1_000);
        assertThat(CostReport.Settings.parse("--quick").rollingTenants()).containsExactly(100);
        assertThat(CostReport.Settings.parse("--rolling-tenants", "100,1000").rollingTenants()).containsExactly(100, 1_000);
        assertThat(CostReport.Settings.parse("--only", "burst").rollingRestarts()).isEmpty();
        assertThat(CostReport.Settings.parse("--only", "rolling", "--rolling-tenants", "100,1000").rollingRestarts())
            .extracting(RollingRestart::name).containsExactly("a rolling restart of 3 instances over 100 tenants × 3 views",
                    "a rolling restart of 3 instances over 1,000 tenants × 3 views");
        assertThatThrownBy(() -> CostReport.Settings.parse("--rolling-tenants", "0")).hasMessageContaining("between");
    }

    @Test
    void theVariantsOfTheWritesNotAppliedAndTheWaitForCheckpointsAreOptions() {
        CostReport.Settings defaults = CostReport.Settings.parse();
        assertThat(defaults.rollingUnapplied()).isTrue();
        assertThat(defaults.rollingCheckpointWait()).isTrue();
        CostReport.Settings chosen = CostReport.Settings.parse("--rolling-unapplied", "false",
                "--rolling-checkpoint-wait", "false");
        assertThat(chosen.rollingUnapplied()).isFalse();
        assertThat(chosen.rollingCheckpointWait()).isFalse();
        assertThat(RollingRestartRun.afterWarmUp(false)).isEqualTo(RollingRestartRun.AFTER_WARM_UP);
        assertThat(RollingRestartRun.afterWarmUp(true)).extracting(plan -> plan.ids() + " " + plan.writes())
            .endsWith("SAME UNAPPLIED", "NEW UNAPPLIED")
            .hasSize(RollingRestartRun.AFTER_WARM_UP.size() + 2);
        assertThatThrownBy(() -> CostReport.Settings.parse("--rolling-checkpoint-wait", "no"))
            .hasMessageContaining("neither true nor false");
        assertThatThrownBy(() -> CostReport.Settings.parse("--rolling-unapplied")).hasMessageContaining("needs a value");
    }
}
