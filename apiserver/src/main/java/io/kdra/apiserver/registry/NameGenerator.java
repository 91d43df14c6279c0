package io.kdra.apiserver.registry;

import java.security.SecureRandom;

/** generateName: the prefix (cut to fit) plus five random characters from the Kubernetes alphabet. */
final class NameGenerator {

    private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final int RANDOM_LENGTH = 5;
    private static final int MAX_NAME_LENGTH = 63;
    private static final SecureRandom RANDOM = new SecureRandom();

    private NameGenerator() {}

    static String generate(String prefix) {
        String base = prefix.length() > MAX_NAME_LENGTH - RANDOM_LENGTH
                ? prefix.substring(0, MAX_NAME_LENGTH - RANDOM_LENGTH)
                : prefix;
        StringBuilder name = new StringBuilder(base);
        for (int i = 0; i < RANDOM_LENGTH; i++) {
            name.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return name.toString();
    }
}
