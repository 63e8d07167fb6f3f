package dev.materializer.benchmarks.cost;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import dev.materializer.core.PassOutcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cost report's burst across tenants at a tiny size: three tenants, one insert each, every view
 * flips and the row is printed; and the options that choose it.
 */
class BurstAcrossTenantsTest {

    private static final int TENANTS = 3;

    @Test
    void aBurstAcrossThreeTenantsWaitsForEveryViewToFlipAndIsReported() throws Exception {
        CostReport.Settings settings = CostReport.Settings.parse("--only", "burst", "--burst-tenants",
                String.valueOf(TENANTS), "--repeats", "1");

        CostReport.Run run = CostReport.measure(settings, new PrintStream(OutputStream.nullOutputStream()));

        assertThat(run.results()).as("--only burst runs the burst alone").hasSize(1);
        CostReport.Result result = run.results().get(0);
        assertThat(result.error()).isNull();
        assertThat(result.start()).isNotNull();
        assertThat(result.start().settled()).isTrue();
        assertThat(result.samples()).hasSize(1);
        ScenarioRun.Sample sample = result.samples().get(0);
        assertThat(sample.complete()).as(CostTable.incomplete(sample)).isTrue();
        assertThat(sample.flips().views()).isEqualTo(TENANTS);
        assertThat(sample.flips().generationsMoved()).isEqualTo(TENANTS);
        assertThat(sample.flips().changedPasses()).isEqualTo(TENANTS);
        assertThat(sample.flips().lastFlipNanos()).isPositive();
        assertThat(sample.flips().medianFlipNanos()).as("write → visible of the median view").isPositive()
            .isLessThanOrEqualTo(sample.flips().p99FlipNanos());
        assertThat(sample.flips().p99FlipNanos()).isLessThanOrEqualTo(sample.flips().lastFlipNanos());
        assertThat(sample.changesHeard()).containsEntry(Scenario.ORDERS, (long) TENANTS);
        assertThat(sample.passes()).filteredOn(report -> report.outcome() == PassOutcome.CHANGED)
            .extracting(report -> report.view().partition())
            .containsExactlyInAnyOrder("t00000", "t00001", "t00002");
        Figures figures = result.figures().get(0);
        // Each tenant's one changed group is written again: a row per tenant at the least.
        assertThat(figures.rowsWritten()).isGreaterThanOrEqualTo(TENANTS);
        assertThat(figures.commandsWithoutStreams()).isGreaterThanOrEqualTo(TENANTS);
        assertThat(figures.commandsByCollection()).contains("`" + Scenario.BurstAcrossTenants.TARGET + "`", "`orders`");

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        CostTable.print(run, new PrintStream(printed, true, StandardCharsets.UTF_8));
        String table = printed.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("| a burst of one insert in each of 3 tenants sharing one group-by definition")
            .contains("views on a new generation 3 of 3")
            .contains("write → visible p50 ")
            .contains("### A burst across tenants")
            .doesNotContain("per-document view")
            .doesNotContain("timed out");
    }

    @Test
    void theBurstsTenantsAndTheRowsToRunComeFromTheCommandLine() {
        assertThat(CostReport.Settings.parse().burstTenants()).as("one tenant, the reference of the others' times")
            .containsExactly(1, 100, 1_000);
        assertThat(CostReport.Settings.parse().rows()).containsExactlyInAnyOrder(CostRow.values());
        assertThat(CostReport.Settings.parse("--quick").burstTenants()).containsExactly(1, 100);
        CostReport.Settings chosen = CostReport.Settings.parse("--burst-tenants", "100,1000,10000", "--only",
                "burst,delete-tenants");
        assertThat(chosen.burstTenants()).containsExactly(100, 1_000, 10_000);
        assertThat(chosen.scenarios()).extracting(Scenario::name).containsExactly(
                "delete without a pre-image, 100 tenants", "delete without a pre-image, 1,000 tenants",
                "a burst of one insert in each of 100 tenants",
                "a burst of one insert in each of 1,000 tenants", "a burst of one insert in each of 10,000 tenants");
        assertThatThrownBy(() -> CostReport.Settings.parse("--only", "bursts")).hasMessageContaining("unknown row");
        assertThatThrownBy(() -> CostReport.Settings.parse("--burst-tenants", "0")).hasMessageContaining("between");
        assertThat(CostReport.Settings.parse().deleteTenants()).containsExactly(100, 1_000);
        assertThat(CostReport.Settings.parse("--quick").deleteTenants()).containsExactly(100);
        assertThat(CostReport.Settings.parse("--delete-tenants", "1000").deleteTenants()).containsExactly(1_000);
        assertThatThrownBy(() -> CostReport.Settings.parse("--delete-tenants", "20000")).hasMessageContaining("between");
    }
}
