package io.kdra.plugin;

/**
 * What the kubelet last reported through NotifyRegistrationStatus.
 *
 * @param registered whether the kubelet accepted the plugin
 * @param error the kubelet's reason when it did not, empty otherwise
 */
public record RegistrationStatus(boolean registered, String error) {
}
