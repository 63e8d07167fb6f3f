package dev.materializer.benchmarks.cost;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A small run of the heap report: the child JVM starts, both phases end and report; the table prints. */
class HeapReportTest {

    private static final int ROWS = 3_000;

    @Test
    void aSmallViewRunsBothWholePassesInAChildJvmAndIsReported() throws Exception {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());

        HeapReport.Run run = HeapReport.run(ROWS, true, "64m", null, false, quiet);

        assertThat(run.exitCode()).as("the child's last words: %s", run.failure()).isZero();
        assertThat(run.phases()).extracting(phase -> phase.get("phase")).containsExactly("first-run", "refresh");
        Map<String, String> first = run.phases().get(0);
        Map<String, String> refresh = run.phases().get(1);
        assertThat(first.get("written")).isEqualTo(String.valueOf(ROWS));
        assertThat(refresh.get("written")).isEqualTo("0");
        // 3,000 rows in batches of 1,000: the first batch of the aggregate and two getMores.
        assertThat(Long.parseLong(first.get("resultBatches"))).isEqualTo(3);
        assertThat(Long.parseLong(first.get("passAllocated"))).isPositive();
        assertThat(Long.parseLong(first.get("poolPeaks"))).isPositive();

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        HeapReport.print(HeapReport.Settings.parse("--rows", String.valueOf(ROWS), "--heaps", "64m"), "machine", "0 0 0",
                "0 0 0", 1, List.of(run), new PrintStream(printed, true, StandardCharsets.UTF_8));
        assertThat(printed.toString(StandardCharsets.UTF_8))
            .contains("| in batches of batchSize (as MongoDB) | 64m | first-run | yes (CHANGED, FULL) | 3000 | 3 |")
            .contains("| in batches of batchSize (as MongoDB) | 64m | refresh | yes (");
    }

    @Test
    void settingsRefuseWhatTheyCannotRun() {
        assertThat(HeapReport.Settings.parse().heaps()).containsExactly("64m", "16m");
        assertThat(HeapReport.Settings.parse("--roomy-heap", "none").roomyHeap()).isNull();
        assertThatThrownBy(() -> HeapReport.Settings.parse("--heaps", "64")).hasMessageContaining("as for -Xmx");
        assertThatThrownBy(() -> HeapReport.Settings.parse("--histograms")).hasMessageContaining("--keep");
    }
}
