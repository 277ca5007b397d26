package dev.kevo.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.BrowserCondition;
import dev.kevo.BrowserTest;
import dev.kevo.TestFiles;
import dev.kevo.store.CampaignStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The report's pages in headless Chromium, as a reader opens them: no console errors, nothing fetched, every chart
 * and the lineage graph drawn, and a click on a graph node shows that mutant's source. Leaves the pages and a
 * screenshot of the campaign page in target/ (report-screenshot.png is CI's artifact).
 */
@BrowserTest
class ReportBrowserTest {
    static final Path TARGET = TestFiles.root().resolve("target");
    static ChromeDriver driver;

    @BeforeAll
    static void startBrowser() throws IOException {
        Files.createDirectories(TARGET);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BrowserCondition.chromium().orElseThrow().toFile());
        // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--window-size=1500,1100");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        // The driver is named, so Selenium Manager never looks for one on the network.
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(BrowserCondition.chromedriver().orElseThrow().toFile()).usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
    }

    @AfterAll
    static void stopBrowser() {
        if (driver != null) {
            driver.quit();
        }
    }

    static Path write(String name, String html) throws IOException {
        Path page = TARGET.resolve(name);
        Files.writeString(page, html);
        return page;
    }

    /** Opens a page and returns what its console said; fails on any SEVERE entry (an error or an exception). */
    static List<LogEntry> open(Path page) {
        driver.manage().window().setSize(new Dimension(1500, 1100));
        driver.get(page.toUri().toString());
        List<LogEntry> console = driver.manage().logs().get(LogType.BROWSER).getAll();
        console.forEach(e -> System.err.println("browser console (" + page.getFileName() + "): " + e));
        List<LogEntry> severe = console.stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .toList();
        assertTrue(severe.isEmpty(), "console errors: " + severe);
        Object fetched = js("return performance.getEntriesByType('resource').map(e => e.name);");
        assertEquals(List.of(), fetched, "the page loads nothing: everything is inline");
        return console;
    }

    static Object js(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    /** Every chart canvas on the page that is not in a hidden section: its id, whether it has any drawn pixel. */
    @SuppressWarnings("unchecked")
    static Map<String, Boolean> charts() {
        List<List<Object>> rows = (List<List<Object>>) js("""
                const drawn = c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                  for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true; return false; };
                return Array.from(document.querySelectorAll('canvas[id^="chart-"]'))
                  .filter(c => !c.closest('[hidden]'))
                  .map(c => [c.id, !!Chart.getChart(c) && c.width > 0 && c.height > 0 && drawn(c)]);""");
        return rows.stream().collect(Collectors.toMap(r -> (String) r.get(0), r -> (Boolean) r.get(1)));
    }

    @Test
    void theCampaignPageDrawsEverythingAndANodeClickShowsItsSource() throws IOException {
        CampaignStore store = CampaignStore.open(ReportFixture.folder());
        Path page = write("report-fixture.html", HtmlPage.render(HtmlPage.Kind.CAMPAIGN, "kevo report: default-h100",
                "written by ReportBrowserTest", CampaignReport.gather(store, 10, TARGET)));
        open(page);

        Map<String, Boolean> charts = charts();
        assertEquals(Map.of("chart-evals", true, "chart-time", true, "chart-shape-time", true,
                "chart-shape-floor", true, "chart-verdicts", true), charts, "every chart drawn; no usage charts");
        assertEquals(Boolean.TRUE, js("return document.getElementById('usage').hidden;"), "no LLM, no usage section");

        assertEquals(7L, js("return window.kevo.cy.nodes().length;"));
        assertEquals(6L, js("return window.kevo.cy.edges().length;"));
        assertEquals(Boolean.TRUE, js("""
                return Array.from(document.querySelectorAll('#lineage canvas')).some(c => {
                  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                  for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true; return false; });"""),
                "the lineage graph is drawn");
        assertTrue(driver.findElement(By.id("mutant-title")).getText().startsWith(ReportFixture.CHAMPION),
                "the champion is open at first");

        String target = "g0008-i1-c1";
        WebElement graph = driver.findElement(By.id("lineage"));
        js("arguments[0].scrollIntoView({block: 'center'});", graph);
        @SuppressWarnings("unchecked")
        Map<String, Number> at = (Map<String, Number>) js("return window.kevo.cy.getElementById(arguments[0])"
                + ".renderedPosition();", target);
        int dx = (int) Math.round(at.get("x").doubleValue() - graph.getRect().getWidth() / 2.0);
        int dy = (int) Math.round(at.get("y").doubleValue() - graph.getRect().getHeight() / 2.0);
        new Actions(driver).moveToElement(graph, dx, dy).click().perform();
        waitFor(() -> driver.findElement(By.id("mutant-title")).getText().startsWith(target), "the panel shows " + target);
        assertEquals(store.source(target), js("return document.getElementById('mutant-source').textContent;"));
        assertTrue(driver.findElement(By.id("mutant-source")).isDisplayed());

        driver.findElement(By.cssSelector("#mutant-panel button[data-tab='diff-g0001-i1-c1']")).click();
        WebElement diff = driver.findElement(By.id("mutant-diff-g0001-i1-c1"));
        assertTrue(diff.isDisplayed() && diff.getText().contains("@@"), "the diff against its parent");
        assertFalse(driver.findElement(By.id("mutant-source")).isDisplayed());
        driver.findElement(By.cssSelector("#mutant-panel button[data-tab='shapes']")).click();
        assertEquals(14, driver.findElements(By.cssSelector("#mutant-shapes tbody tr")).size());

        WebElement second = driver.findElement(By.cssSelector("#top-table tbody tr:nth-child(2)"));
        String secondId = second.getAttribute("data-id");
        second.click();
        assertTrue(driver.findElement(By.id("mutant-title")).getText().startsWith(secondId), "a row opens its mutant");
        js("window.kevo.show(arguments[0]);", ReportFixture.CHAMPION);

        // The whole page in one picture: grow the window until the viewport holds it (charts re-layout on resize).
        js("window.scrollTo(0, 0);");
        for (int i = 0; i < 3; i++) {
            long full = (Long) js("return document.documentElement.scrollHeight;");
            long chrome = driver.manage().window().getSize().getHeight() - (Long) js("return window.innerHeight;");
            driver.manage().window().setSize(new Dimension(1500, (int) Math.min(full + chrome, 16000)));
        }
        Path shot = TARGET.resolve("report-screenshot.png");
        Files.write(shot, driver.getScreenshotAs(OutputType.BYTES));
        assertTrue(Files.size(shot) > 50_000, "a screenshot of the whole page");
        System.err.println("report screenshot: " + shot + " (" + Files.size(shot) / 1024 + " KB)");
    }

    @Test
    void tokensAndCostAreDrawnWhenRecordsCarryThem() throws IOException {
        // The recorded campaign used no LLM; its evaluations with usage attached stand in for one that did.
        ReportData recorded = CampaignReport.gather(CampaignStore.open(ReportFixture.folder()), 3, TARGET);
        List<ReportData.ScorePoint> withUsage = recorded.evaluations().stream().map(e -> new ReportData.ScorePoint(
                e.id(), e.evaluation(), e.minutes(), e.island(), e.generation(), "llm", e.operator(), e.verdict(),
                e.group(), e.score(), e.cachedFrom(), e.island() < 0 ? List.of() : List.of(
                        new LlmUsage(e.island() % 2 == 0 ? "model-a" : "model-b", 1200 + 10L * e.evaluation(), 0.01))))
                .toList();
        ReportData data = new ReportData(recorded.kind(), recorded.summary(), withUsage, recorded.islands(),
                recorded.champions(), recorded.shapes(), recorded.lineage(), recorded.verdicts(),
                CampaignReport.usageSeries(withUsage), recorded.top(), recorded.mutants());
        open(write("report-usage-fixture.html", HtmlPage.render(HtmlPage.Kind.CAMPAIGN, "usage", "test", data)));
        assertEquals(Boolean.FALSE, js("return document.getElementById('usage').hidden;"));
        Map<String, Boolean> charts = charts();
        assertEquals(Boolean.TRUE, charts.get("chart-tokens"));
        assertEquals(Boolean.TRUE, charts.get("chart-cost"));
        assertEquals(2L, js("return Chart.getChart('chart-cost').data.datasets.length;"), "one line per model");
    }

    @Test
    void theComparePageDrawsItsChartsAndBothKernels() throws IOException {
        Path page = write("report-compare-fixture.html", HtmlPage.render(HtmlPage.Kind.COMPARE, "kevo compare",
                "written by ReportBrowserTest", CampaignCompare.compare(ReportFixture.folder(),
                        ReportFixture.folder().resolve("seed-online"), TARGET)));
        open(page);
        assertEquals(Map.of("chart-shape-time", true, "chart-shape-floor", true), charts(),
                "a campaign against a mutant: shape charts, no progress or verdict charts");
        assertTrue(driver.findElement(By.id("mutant-a-title")).getText().startsWith(ReportFixture.CHAMPION));
        assertTrue(driver.findElement(By.id("mutant-b-title")).getText().startsWith("seed-online"));
        assertTrue(driver.findElement(By.id("diff")).getText().contains("+++ B/seed-online.cu"));
        assertEquals(14, driver.findElements(By.cssSelector("#shape-table tbody tr")).size());
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, String what) {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
