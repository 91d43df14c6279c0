package io.kdra.kube.taint;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintSelector;
import java.util.ArrayList;
import java.util.List;

/** The taints a device carries: its own and those DeviceTaintRules add, as the allocator and the taint controller see them. */
public final class DeviceTaints {

    private DeviceTaints() {}

    /**
     * The taints of the rules that select the device, in rule order. A rule without a selector selects nothing; an
     * empty selector selects every device; set fields of the selector must all match.
     *
     * @param driver the driver of the device's ResourceSlice
     * @param pool the pool name of the device's ResourceSlice
     */
    public static List<DeviceTaint> ruleTaints(List<DeviceTaintRule> rules, String driver, String pool, Device device) {
        List<DeviceTaint> taints = List.of();
        for (DeviceTaintRule rule : rules) {
            if (rule.getSpec() == null || rule.getSpec().getTaint() == null
                    || !selects(rule.getSpec().getDeviceSelector(), driver, pool, device.getName())) {
                continue;
            }
            if (taints.isEmpty()) {
                taints = new ArrayList<>();
            }
            taints.add(rule.getSpec().getTaint());
        }
        return taints;
    }

    /** The device's own taints followed by those of the rules that select it. */
    public static List<DeviceTaint> effectiveTaints(List<DeviceTaintRule> rules, String driver, String pool,
                                                    Device device) {
        List<DeviceTaint> taints = new ArrayList<>(device.getTaints() == null ? List.of() : device.getTaints());
        taints.addAll(ruleTaints(rules, driver, pool, device));
        return List.copyOf(taints);
    }

    /**
     * Whether the rule selects the device: as for {@link #ruleTaints}, without a selector none, with an empty one every
     * device.
     *
     * @param deviceName the device's name in its ResourceSlice (or in an allocation result)
     */
    public static boolean selects(DeviceTaintRule rule, String driver, String pool, String deviceName) {
        return rule.getSpec() != null && selects(rule.getSpec().getDeviceSelector(), driver, pool, deviceName);
    }

    private static boolean selects(DeviceTaintSelector selector, String driver, String pool, String deviceName) {
        return selector != null
                && matchesIfSet(selector.getDriver(), driver)
                && matchesIfSet(selector.getPool(), pool)
                && matchesIfSet(selector.getDevice(), deviceName);
    }

    private static boolean matchesIfSet(String wanted, String actual) {
        return wanted == null || wanted.isEmpty() || wanted.equals(actual);
    }
}
