package io.kdra.testdriver;

/**
 * A prepared claim as the test driver remembers it. The namespace is left out, as upstream: the UID already makes the
 * ID unique and the name helps when reading test output.
 *
 * @param name the claim's name
 * @param uid the claim's UID
 */
public record ClaimId(String name, String uid) {
}
