package io.kdra.kube.taint;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import java.util.List;
import java.util.Objects;

/** Device taints and tolerations, as upstream's {@code resourceclaim.ToleratesTaint}. */
public final class DeviceTolerations {

    private DeviceTolerations() {}

    /** Whether a NoSchedule or NoExecute taint is not tolerated; other effects (None) never block. */
    public static boolean preventAllocation(List<DeviceTaint> taints, List<DeviceToleration> tolerations) {
        for (DeviceTaint taint : taints) {
            if (("NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect()))
                    && !tolerated(taint, tolerations)) {
                return true;
            }
        }
        return false;
    }

    /** Whether one toleration tolerates the taint: effect and key match when set, then Equal or Exists. */
    public static boolean tolerates(DeviceToleration toleration, DeviceTaint taint) {
        if (isSet(toleration.getEffect()) && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (isSet(toleration.getKey()) && !toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        String operator = toleration.getOperator();
        if (!isSet(operator) || "Equal".equals(operator)) {
            return Objects.equals(emptyIfNull(toleration.getValue()), emptyIfNull(taint.getValue()));
        }
        return "Exists".equals(operator);
    }

    /** Whether any of the tolerations tolerates the taint. */
    public static boolean tolerated(DeviceTaint taint, List<DeviceToleration> tolerations) {
        for (DeviceToleration toleration : tolerations) {
            if (tolerates(toleration, taint)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isSet(String value) {
        return value != null && !value.isEmpty();
    }

    private static String emptyIfNull(String value) {
        return value == null ? "" : value;
    }
}
