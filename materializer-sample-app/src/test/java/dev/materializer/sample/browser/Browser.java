package dev.materializer.sample.browser;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium driven by the system's chromedriver (Debian's {@code chromium} and
 * {@code chromium-driver}), never one downloaded at run time. Where either is missing, the test
 * that asks for one is skipped, saying what to install. Paths can be given with
 * {@code CHROMIUM_BINARY} and {@code CHROMEDRIVER}.
 */
final class Browser {

    private static final String[] BINARIES = {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"};

    private static final String[] DRIVERS = {"/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"};

    private Browser() {
    }

    /** A new headless browser; skips the test when none is installed. */
    static ChromeDriver open() {
        String binary = found(System.getenv("CHROMIUM_BINARY"), BINARIES);
        String driver = found(System.getenv("CHROMEDRIVER"), DRIVERS);
        Assumptions.assumeTrue(binary != null && driver != null, "no Chromium here (binary " + binary + ", driver "
                + driver + "): install the packages chromium and chromium-driver to run the browser tests");
        ChromeOptions options = new ChromeOptions().setBinary(binary)
            .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,900");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver))
            .usingAnyFreePort().build();
        ChromeDriver browser = new ChromeDriver(service, options);
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
        return browser;
    }

    private static @Nullable String found(@Nullable String given, String... candidates) {
        if (given != null && !given.isBlank()) {
            return Files.isExecutable(Path.of(given)) ? given : null;
        }
        for (String candidate : candidates) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return null;
    }

    /** Saves what the browser shows in {@code target/screenshots/<name>.png}, for the docs. */
    static Path screenshot(ChromeDriver browser, String name) throws IOException {
        File taken = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path target = Path.of("target", "screenshots", name + ".png");
        Files.createDirectories(target.getParent());
        return Files.copy(taken.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
    }
}
