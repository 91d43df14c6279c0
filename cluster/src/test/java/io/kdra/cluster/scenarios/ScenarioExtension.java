package io.kdra.cluster.scenarios;

import io.kdra.testdriver.ExamplePlugin;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A scenario class's lifecycle: its {@link ScenarioCluster} started before the first test and closed after the last;
 * each test instance takes its own {@link Scenario} (torn down after the test), and before each test the drivers
 * are ready with a fresh call history.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ScenarioExtension scenarios = new ScenarioExtension(
 *         () -> ScenarioCluster.start(EmbeddedCluster.builder().nodes(2)));
 * private final ScenarioCluster cluster = scenarios.cluster();
 * private final Scenario scenario = scenarios.newScenario();
 * }</pre>
 */
final class ScenarioExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback {

    private final Supplier<ScenarioCluster> start;
    private ScenarioCluster cluster;
    private Scenario scenario;

    ScenarioExtension(Supplier<ScenarioCluster> start) {
        this.start = start;
    }

    ScenarioCluster cluster() {
        return cluster;
    }

    /** A new namespace for the test being constructed; torn down after it. */
    Scenario newScenario() {
        scenario = cluster.scenario();
        return scenario;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = start.get();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        cluster.awaitDriversReady();
        cluster.drivers().forEach(ExamplePlugin::resetGrpcCalls);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        scenario.tearDown();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }
}
