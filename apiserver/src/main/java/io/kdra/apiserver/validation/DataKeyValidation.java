package io.kdra.apiserver.validation;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.FieldError.Type;
import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * The keys of a ConfigMap's or Secret's {@code data} and {@code binaryData} (or {@code stringData}), validated as
 * kube-apiserver's {@code IsConfigMapKey}: each becomes a file name in a volume, so it is at most 253 characters of
 * {@code [-._a-zA-Z0-9]}, and not {@code .}, {@code ..} or starting with {@code ..}; a ConfigMap key may not be in
 * both maps.
 */
public final class DataKeyValidation implements ObjectValidator {

    private static final int MAX_KEY_LENGTH = 253;
    private static final Pattern KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private static final String KEY_MESSAGE = "a valid config key must consist of alphanumeric characters, '-', '_' "
            + "or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
            + "'[-._a-zA-Z0-9]+')";

    private final List<String> maps;

    private DataKeyValidation(List<String> maps) {
        this.maps = maps;
    }

    public static DataKeyValidation configMaps() {
        return new DataKeyValidation(List.of("data", "binaryData"));
    }

    public static DataKeyValidation secrets() {
        return new DataKeyValidation(List.of("data", "stringData"));
    }

    @Override
    public List<FieldError> validateCreate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>();
        for (String map : maps) {
            JsonNode entries = Json.at(object, map);
            for (Iterator<String> keys = entries.isObject() ? entries.propertyNames().iterator()
                    : Collections.emptyIterator(); keys.hasNext(); ) {
                String key = keys.next();
                for (String problem : problems(key)) {
                    errors.add(new FieldError(Type.INVALID, map + "[" + key + "]", StringNode.valueOf(key), problem));
                }
            }
        }
        if (maps.contains("binaryData")) {
            JsonNode binary = Json.at(object, "binaryData");
            JsonNode data = Json.at(object, "data");
            if (binary.isObject() && data.isObject()) {
                for (String key : binary.propertyNames()) {
                    if (data.has(key)) {
                        errors.add(new FieldError(Type.INVALID, "data[" + key + "]", StringNode.valueOf(key),
                                "duplicate of key present in binaryData"));
                    }
                }
            }
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode object, ObjectNode old) {
        return validateCreate(object);
    }

    static List<String> problems(String key) {
        List<String> problems = new ArrayList<>();
        if (key.length() > MAX_KEY_LENGTH) {
            problems.add("must be no more than " + MAX_KEY_LENGTH + " characters");
        }
        if (!KEY.matcher(key).matches()) {
            problems.add(KEY_MESSAGE);
        }
        if (key.equals(".")) {
            problems.add("must not be '.'");
        } else if (key.equals("..")) {
            problems.add("must not be '..'");
        } else if (key.startsWith("..")) {
            problems.add("must not start with '..'");
        }
        return problems;
    }
}
