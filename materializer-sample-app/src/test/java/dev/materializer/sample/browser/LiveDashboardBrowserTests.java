package dev.materializer.sample.browser;

import java.time.Duration;

import dev.materializer.sample.ShopApi;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live dashboard in a real browser: the sample on a random port, the page open in headless
 * Chromium; an order posted through the page's form changes the table cell and the best product,
 * with no reload — the page follows the views over server-sent events.
 */
// Its own context, closed after it: the browser's streams and the data it posts reach no other test
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LiveDashboardBrowserTests {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @LocalServerPort
    int port;

    @Test
    void anOrderPostedThroughThePageChangesItsTableCellAndTheBestProduct() throws Exception {
        ChromeDriver browser = Browser.open();
        try {
            new ShopApi(this.port).install("live");
            browser.get("http://localhost:" + this.port + "/dashboard.html?tenant=live");
            WebDriverWait wait = new WebDriverWait(browser, WAIT);
            wait.until(ExpectedConditions.textToBe(By.id("status"), "live"));

            post(browser, "kiwi", 3, 5);
            wait.until(ExpectedConditions.textToBe(By.id("revenue-kiwi"), "15"));
            wait.until(ExpectedConditions.textToBe(By.id("best-product"), "kiwi"));

            post(browser, "fig", 2, 4);
            wait.until(ExpectedConditions.textToBe(By.id("revenue-fig"), "8"));
            post(browser, "kiwi", 1, 5);
            wait.until(ExpectedConditions.textToBe(By.id("revenue-kiwi"), "20"));
            assertThat(browser.findElement(By.id("best-revenue")).getText()).isEqualTo("(20)");
            assertThat(browser.getCurrentUrl()).as("no reload").endsWith("/dashboard.html?tenant=live");
            Browser.screenshot(browser, "live-dashboard");
        }
        finally {
            browser.quit();
        }
    }

    private static void post(ChromeDriver browser, String product, int quantity, int price) {
        fill(browser, "product", product);
        fill(browser, "quantity", Integer.toString(quantity));
        fill(browser, "price", Integer.toString(price));
        browser.findElement(By.id("post")).click();
    }

    private static void fill(ChromeDriver browser, String field, String value) {
        WebElement input = browser.findElement(By.name(field));
        input.clear();
        input.sendKeys(value);
    }
}
