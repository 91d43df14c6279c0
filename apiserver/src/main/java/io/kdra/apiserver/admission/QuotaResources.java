package io.kdra.apiserver.admission;

import io.kdra.apiserver.api.ResourceType;
import java.util.Map;

/** Which quota resource names count objects of a kind: {@code count/<plural>[.<group>]} and the legacy names. */
public final class QuotaResources {

    private static final Map<String, String> LEGACY = Map.of(
            "pods", "/pods",
            "configmaps", "/configmaps",
            "secrets", "/secrets",
            "resourcequotas", "/resourcequotas");

    private QuotaResources() {}

    /** @return whether the quota resource name counts objects of the type */
    public static boolean counts(String quotaResource, ResourceType type) {
        if (quotaResource.equals("count/" + type.groupResource())) {
            return true;
        }
        return type.storageKey().equals(LEGACY.get(quotaResource));
    }

    /** @return the quantity as a whole count, or null when it is not one (e.g. {@code 500m}) */
    public static Long parseCount(String quantity) {
        String text = quantity.trim();
        long factor = 1;
        if (text.endsWith("k")) {
            factor = 1000;
            text = text.substring(0, text.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(text), factor);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }
}
