package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.kdra.allocator.cel.CompiledSelector;
import io.kdra.allocator.cel.SelectorCompileException;
import io.kdra.allocator.cel.SelectorCompiler;
import io.kdra.allocator.cel.SelectorEvaluationException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for the Kubernetes CEL environment that understands the few expression shapes the allocator tests use:
 * {@code true}, {@code device.driver == "d"} and {@code device.attributes["dom"].name == value} (string, int or bool;
 * a missing attribute is a runtime error, as in CEL). Anything else does not compile. It counts evaluations so tests
 * can check caching.
 */
final class TestSelectorCompiler implements SelectorCompiler {

    private static final Pattern DRIVER = Pattern.compile("device\\.driver == \"([^\"]*)\"");
    private static final Pattern ATTRIBUTE =
            Pattern.compile("device\\.attributes\\[\"([^\"]+)\"\\]\\.(\\w+) == (\"[^\"]*\"|-?\\d+|true|false)");

    final AtomicInteger evaluations = new AtomicInteger();

    @Override
    public CompiledSelector compile(String expression) throws SelectorCompileException {
        if (expression.equals("true")) {
            return selector(expression, (driver, device) -> true);
        }
        Matcher driverMatch = DRIVER.matcher(expression);
        if (driverMatch.matches()) {
            return selector(expression, (driver, device) -> driver.equals(driverMatch.group(1)));
        }
        Matcher attributeMatch = ATTRIBUTE.matcher(expression);
        if (attributeMatch.matches()) {
            String domain = attributeMatch.group(1);
            String name = attributeMatch.group(2);
            String literal = attributeMatch.group(3);
            return selector(expression, (driver, device) -> {
                DeviceAttribute attribute = lookup(device, driver, domain, name);
                if (attribute == null) {
                    throw new SelectorEvaluationException("no such key: " + name);
                }
                return literal.startsWith("\"") ? literal.substring(1, literal.length() - 1)
                        .equals(attribute.getString())
                        : literal.equals("true") || literal.equals("false")
                                ? Boolean.valueOf(literal).equals(attribute.getBool())
                                : Long.valueOf(literal).equals(attribute.getInt());
            });
        }
        throw new SelectorCompileException("ERROR: <input>:1:1: Syntax error: unsupported in tests: " + expression);
    }

    private static DeviceAttribute lookup(Device device, String driver, String domain, String name) {
        Map<String, DeviceAttribute> attributes = device.getAttributes();
        if (attributes == null) {
            return null;
        }
        DeviceAttribute qualified = attributes.get(domain + "/" + name);
        return qualified != null || !domain.equals(driver) ? qualified : attributes.get(name);
    }

    private interface Predicate {
        boolean test(String driver, Device device) throws SelectorEvaluationException;
    }

    private CompiledSelector selector(String expression, Predicate predicate) {
        return new CompiledSelector() {
            @Override
            public String expression() {
                return expression;
            }

            @Override
            public boolean matches(String driver, Device device) throws SelectorEvaluationException {
                evaluations.incrementAndGet();
                return predicate.test(driver, device);
            }
        };
    }
}
