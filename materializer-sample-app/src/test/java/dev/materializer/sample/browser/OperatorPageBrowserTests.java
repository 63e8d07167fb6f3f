package dev.materializer.sample.browser;

import java.time.Duration;
import java.util.List;

import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.data.mongodb.core.MongoTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's operator page in a real browser: opted in and exposed, it draws each tenant's views
 * as a graph (orders → revenue → best product, a view over a view) from the endpoint's JSON, and
 * puts an errored view first with its error.
 */
// Its own context, closed after it: the browser's streams and the data it posts reach no other test
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "materializer.ui.enabled=true",
        "management.endpoints.web.exposure.include=health,metrics,materializer,materializerui" })
class OperatorPageBrowserTests {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @LocalServerPort
    int port;

    @Autowired
    MongoTemplate mongo;

    @Test
    void thePageDrawsTheGraphOfEachTenantsViewsAndShowsAnErroredViewWithItsError() throws Exception {
        ChromeDriver browser = Browser.open();
        try {
            // A view the engine refuses: it writes with $out
            this.mongo.getCollection("_aggregations").insertOne(new Document("_id", "acme:broken")
                .append("_part", "acme").append("collections", List.of("orders"))
                .append("pipeline", List.of(new Document("$out", "elsewhere"))).append("targetCollection", "broken"));
            browser.get("http://localhost:" + this.port + "/actuator/materializerui");
            WebDriverWait wait = new WebDriverWait(browser, WAIT);

            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("engine-state"), "running"));
            wait.until(ExpectedConditions.presenceOfElementLocated(
                    By.cssSelector("section[data-partition='acme'] g.node[data-node='acme:best-product']")));
            assertThat(browser.findElements(By.cssSelector("section[data-partition='acme'] g.node.source")))
                .as("the source collections").isNotEmpty();
            assertThat(browser.findElements(By.cssSelector("section[data-partition='acme'] path.edge")))
                .as("orders to revenue to best product, and the others").hasSizeGreaterThanOrEqualTo(4);

            By error = By.cssSelector("#errored li[data-view='acme/acme:broken'] .error");
            wait.until(ExpectedConditions.presenceOfElementLocated(error));
            assertThat(browser.findElement(error).getText()).contains("$out");
            assertThat(browser.findElements(By.cssSelector("g.node.errored[data-node='acme:broken']"))).hasSize(1);
            assertThat(browser.findElements(By.cssSelector("section")).get(0).getAttribute("data-partition"))
                .as("the partition with an errored view first").isEqualTo("acme");
            Browser.screenshot(browser, "operator-page");
        }
        finally {
            browser.quit();
        }
    }
}
