package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container's environment and command as the kubelet builds them ({@code makeEnvironmentVariables}): {@code envFrom}
 * ConfigMaps and Secrets, then {@code env} in order with {@code $(VAR)} references to earlier variables expanded,
 * {@code fieldRef}s to the pod's metadata, node and IPs, and ConfigMap/Secret keys read through the API. Command and
 * args get {@code $(VAR)} expanded against the result. Processes share the host network, so the pod IP and host IP
 * are both 127.0.0.1.
 */
final class ContainerEnvironment {

    static final String HOST_IP = "127.0.0.1";
    private static final Pattern FIELD_INDEX = Pattern.compile("metadata\\.(labels|annotations)\\['(.*)'\\]");

    /** A reference that cannot be resolved; the container waits with reason {@code CreateContainerConfigError}. */
    static final class ConfigException extends Exception {
        ConfigException(String message) {
            super(message);
        }
    }

    private final KubernetesClient client;
    private final String nodeName;

    ContainerEnvironment(KubernetesClient client, String nodeName) {
        this.client = client;
        this.nodeName = nodeName;
    }

    Map<String, String> environment(Pod pod, Container container) throws ConfigException {
        String namespace = pod.getMetadata().getNamespace();
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, ConfigMap> configMaps = new HashMap<>();
        Map<String, Secret> secrets = new HashMap<>();
        for (EnvFromSource source : container.getEnvFrom()) {
            String prefix = source.getPrefix() == null ? "" : source.getPrefix();
            if (source.getConfigMapRef() != null) {
                var ref = source.getConfigMapRef();
                ConfigMap map = configMap(namespace, ref.getName(), Boolean.TRUE.equals(ref.getOptional()),
                        configMaps);
                if (map != null && map.getData() != null) {
                    map.getData().forEach((key, value) -> env.put(prefix + key, value));
                }
            } else if (source.getSecretRef() != null) {
                var ref = source.getSecretRef();
                Secret secret = secret(namespace, ref.getName(), Boolean.TRUE.equals(ref.getOptional()), secrets);
                if (secret != null && secret.getData() != null) {
                    secret.getData().forEach((key, value) -> env.put(prefix + key, decode(value)));
                }
            }
        }
        for (EnvVar variable : container.getEnv()) {
            EnvVarSource from = variable.getValueFrom();
            if (from == null) {
                env.put(variable.getName(), expand(variable.getValue() == null ? "" : variable.getValue(), env));
            } else if (from.getFieldRef() != null) {
                env.put(variable.getName(), field(pod, from.getFieldRef().getFieldPath()));
            } else if (from.getConfigMapKeyRef() != null) {
                var ref = from.getConfigMapKeyRef();
                boolean optional = Boolean.TRUE.equals(ref.getOptional());
                ConfigMap map = configMap(namespace, ref.getName(), optional, configMaps);
                String value = map == null || map.getData() == null ? null : map.getData().get(ref.getKey());
                if (value == null && map != null && !optional) {
                    throw new ConfigException("couldn't find key " + ref.getKey() + " in ConfigMap " + namespace
                            + "/" + ref.getName());
                }
                if (value != null) {
                    env.put(variable.getName(), value);
                }
            } else if (from.getSecretKeyRef() != null) {
                var ref = from.getSecretKeyRef();
                boolean optional = Boolean.TRUE.equals(ref.getOptional());
                Secret secret = secret(namespace, ref.getName(), optional, secrets);
                String value = secret == null || secret.getData() == null ? null : secret.getData().get(ref.getKey());
                if (value == null && secret != null && !optional) {
                    throw new ConfigException("couldn't find key " + ref.getKey() + " in Secret " + namespace
                            + "/" + ref.getName());
                }
                if (value != null) {
                    env.put(variable.getName(), decode(value));
                }
            }
        }
        return env;
    }

    /** The container's command followed by its args, with {@code $(VAR)} expanded. */
    static List<String> command(Container container, Map<String, String> env) {
        List<String> command = new ArrayList<>();
        container.getCommand().forEach(part -> command.add(expand(part, env)));
        container.getArgs().forEach(part -> command.add(expand(part, env)));
        return command;
    }

    /**
     * Kubernetes' {@code expansion.Expand}: {@code $(NAME)} becomes the variable's value when it is defined and stays
     * as written otherwise; {@code $$} is an escaped {@code $}.
     */
    static String expand(String input, Map<String, String> env) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < input.length()) {
            char c = input.charAt(i);
            if (c != '$' || i + 1 >= input.length()) {
                out.append(c);
                i++;
                continue;
            }
            char next = input.charAt(i + 1);
            if (next == '$') {
                out.append('$');
                i += 2;
            } else if (next == '(') {
                int close = input.indexOf(')', i + 2);
                if (close < 0) {
                    out.append(input, i, input.length());
                    break;
                }
                String name = input.substring(i + 2, close);
                String value = env.get(name);
                out.append(value != null ? value : "$(" + name + ")");
                i = close + 1;
            } else {
                out.append(c).append(next);
                i += 2;
            }
        }
        return out.toString();
    }

    private String field(Pod pod, String path) throws ConfigException {
        Matcher index = FIELD_INDEX.matcher(path);
        if (index.matches()) {
            Map<String, String> values = index.group(1).equals("labels") ? pod.getMetadata().getLabels()
                    : pod.getMetadata().getAnnotations();
            return values == null ? "" : values.getOrDefault(index.group(2), "");
        }
        return switch (path) {
            case "metadata.name" -> pod.getMetadata().getName();
            case "metadata.namespace" -> pod.getMetadata().getNamespace();
            case "metadata.uid" -> pod.getMetadata().getUid();
            case "spec.nodeName" -> nodeName;
            case "spec.serviceAccountName" -> pod.getSpec().getServiceAccountName() == null ? ""
                    : pod.getSpec().getServiceAccountName();
            case "status.podIP", "status.hostIP", "status.podIPs", "status.hostIPs" -> HOST_IP;
            default -> throw new ConfigException("unsupported fieldPath: " + path);
        };
    }

    private ConfigMap configMap(String namespace, String name, boolean optional, Map<String, ConfigMap> cache)
            throws ConfigException {
        if (!cache.containsKey(name)) {
            cache.put(name, client.configMaps().inNamespace(namespace).withName(name).get());
        }
        ConfigMap map = cache.get(name);
        if (map == null && !optional) {
            throw new ConfigException("configmap \"" + name + "\" not found");
        }
        return map;
    }

    private Secret secret(String namespace, String name, boolean optional, Map<String, Secret> cache)
            throws ConfigException {
        if (!cache.containsKey(name)) {
            cache.put(name, client.secrets().inNamespace(namespace).withName(name).get());
        }
        Secret secret = cache.get(name);
        if (secret == null && !optional) {
            throw new ConfigException("secret \"" + name + "\" not found");
        }
        return secret;
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }
}
