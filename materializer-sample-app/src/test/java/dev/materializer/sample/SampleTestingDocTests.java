package dev.materializer.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The testing guide, {@code docs/testing.md}, shows {@link SampleTestcontainersTests} as it is: the
 * Java block that holds the class is the file, line for line, so the two cannot drift apart.
 */
class SampleTestingDocTests {

    private static final Path GUIDE = Path.of("..", "docs", "testing.md");

    private static final Path TEST = Path.of("src", "test", "java", "dev", "materializer", "sample",
            "SampleTestcontainersTests.java");

    @Test
    void theGuideShowsTheContainerTestAsItIs() throws IOException {
        String guide = Files.readString(GUIDE);
        String test = Files.readString(TEST);

        int start = guide.indexOf("```java\npackage dev.materializer.sample;");
        assertThat(start).as("a Java block of docs/testing.md that starts with the test's package").isNotNegative();
        int from = start + "```java\n".length();
        int end = guide.indexOf("```\n", from);

        assertThat(guide.substring(from, end)).isEqualTo(test);
    }
}
