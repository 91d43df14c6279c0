package io.kdra.allocator.cel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Least-recently-used compile results by expression text, bounded. Compilation happens outside the lock; when two
 * threads compile the same text, the first stored result wins and both get it.
 */
final class SelectorCache {

    /** A compiled selector, or the message of the compile error. */
    record Entry(CompiledSelector selector, String error) {
    }

    private final Map<String, Entry> entries;

    SelectorCache(int capacity) {
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized Entry get(String expression) {
        return entries.get(expression);
    }

    synchronized Entry putIfAbsent(String expression, Entry entry) {
        Entry existing = entries.putIfAbsent(expression, entry);
        return existing != null ? existing : entry;
    }

    synchronized int size() {
        return entries.size();
    }
}
