package io.kdra.apiserver.validation;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.FieldError.Type;
import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.json.Json;
import io.kdra.kube.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * The resource names and amounts of a pod's containers, as kube-apiserver's ValidateResourceRequirements checks them:
 * a name is a standard container resource ({@code cpu}, {@code memory}, {@code ephemeral-storage},
 * {@code hugepages-*}) or fully qualified, and then native ({@code kubernetes.io/} in it, like the implicit DRA names
 * {@code deviceclass.resource.kubernetes.io/<class>}) or a valid extended resource name; an extended resource is a
 * whole number, and, as it cannot be overcommitted, its request equals its limit and a request needs a limit.
 */
public final class ContainerResourceValidation implements ObjectValidator {

    private static final List<String> CONTAINER_LISTS = List.of("initContainers", "containers", "ephemeralContainers");
    private static final Set<String> STANDARD_CONTAINER_RESOURCES = Set.of("cpu", "memory", "ephemeral-storage");
    private static final String HUGEPAGES_PREFIX = "hugepages-";
    private static final String QUOTA_REQUESTS_PREFIX = "requests.";
    private static final int QUALIFIED_NAME_MAX_LENGTH = 63;
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    @Override
    public List<FieldError> validateCreate(ObjectNode pod) {
        List<FieldError> errors = new ArrayList<>();
        for (String list : CONTAINER_LISTS) {
            JsonNode containers = Json.at(pod, "spec", list);
            for (int i = 0; i < containers.size(); i++) {
                validate(Json.at(containers.get(i), "resources"), "spec." + list + "[" + i + "].resources", errors);
            }
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode pod, ObjectNode old) {
        return validateCreate(pod);
    }

    private static void validate(JsonNode resources, String path, List<FieldError> errors) {
        Map<String, String> limits = Json.stringMap(resources, "limits");
        Map<String, String> requests = Json.stringMap(resources, "requests");
        limits.forEach((name, value) -> validateEntry(name, value, path + ".limits[" + name + "]", errors));
        requests.forEach((name, value) -> {
            String entryPath = path + ".requests[" + name + "]";
            if (!validateEntry(name, value, entryPath, errors) || overcommitAllowed(name)) {
                return;
            }
            String limit = limits.get(name);
            if (limit == null) {
                errors.add(new FieldError(Type.REQUIRED, path + ".limits", null,
                        "Limit must be set for non overcommitable resources"));
            } else if (Quantity.tryParse(limit).map(l -> Quantity.parse(value).compareTo(l) != 0).orElse(false)) {
                errors.add(new FieldError(Type.INVALID, entryPath, StringNode.valueOf(value),
                        "must be equal to " + name + " limit of " + limit));
            }
        });
    }

    /** @return whether the entry is valid */
    private static boolean validateEntry(String name, String value, String path, List<FieldError> errors) {
        int before = errors.size();
        StringNode badName = StringNode.valueOf(name);
        List<String> qualified = qualifiedName(name);
        qualified.forEach(message -> errors.add(new FieldError(Type.INVALID, path, badName, message)));
        if (qualified.isEmpty()) {
            if (!name.contains("/")) {
                if (!standardContainerResource(name)) {
                    errors.add(new FieldError(Type.INVALID, path, badName,
                            "must be a standard resource type or fully qualified"));
                    errors.add(new FieldError(Type.INVALID, path, badName,
                            "must be a standard resource for containers"));
                }
            } else if (!nativeResource(name) && !extendedResource(name)) {
                errors.add(new FieldError(Type.INVALID, path, badName,
                        "doesn't follow extended resource name standard"));
            }
        }
        Optional<Quantity> quantity = Quantity.tryParse(value);
        if (quantity.isEmpty()) {
            errors.add(new FieldError(Type.INVALID, path, StringNode.valueOf(value), "must be a valid quantity"));
        } else if (quantity.get().signum() < 0) {
            errors.add(new FieldError(Type.INVALID, path, StringNode.valueOf(value),
                    "must be greater than or equal to 0"));
        } else if (extendedResource(name) && quantity.get().asLong().isEmpty()) {
            errors.add(new FieldError(Type.INVALID, path, StringNode.valueOf(value), "must be an integer"));
        }
        return errors.size() == before;
    }

    private static boolean standardContainerResource(String name) {
        return STANDARD_CONTAINER_RESOURCES.contains(name) || name.startsWith(HUGEPAGES_PREFIX);
    }

    private static boolean nativeResource(String name) {
        return !name.contains("/") || name.contains("kubernetes.io/");
    }

    /** Core {@code IsExtendedResourceName}: not native, and {@code requests.<name>} is a valid quota name. */
    private static boolean extendedResource(String name) {
        return !nativeResource(name) && !name.startsWith(QUOTA_REQUESTS_PREFIX)
                && qualifiedName(QUOTA_REQUESTS_PREFIX + name).isEmpty();
    }

    private static boolean overcommitAllowed(String name) {
        return nativeResource(name) && !name.startsWith(HUGEPAGES_PREFIX);
    }

    /** apimachinery's {@code IsQualifiedName}: an optional DNS subdomain prefix and a name of at most 63 characters. */
    private static List<String> qualifiedName(String value) {
        List<String> messages = new ArrayList<>();
        String[] parts = value.split("/", -1);
        String name = parts[parts.length - 1];
        if (parts.length > 2) {
            messages.add("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start"
                    + " and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex"
                    + " used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS"
                    + " subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return messages;
        }
        if (parts.length == 2) {
            String prefix = parts[0];
            if (prefix.isEmpty()) {
                messages.add("prefix part must be non-empty");
            } else if (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                messages.add("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
                        + " characters, '-' or '.', and must start and end with an alphanumeric character");
            }
        }
        if (name.isEmpty()) {
            messages.add("name part must be non-empty");
        } else if (name.length() > QUALIFIED_NAME_MAX_LENGTH) {
            messages.add("name part must be no more than 63 characters");
        }
        if (!name.isEmpty() && !QUALIFIED_NAME.matcher(name).matches()) {
            messages.add("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and"
                    + " end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used"
                    + " for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
        }
        return messages;
    }
}
