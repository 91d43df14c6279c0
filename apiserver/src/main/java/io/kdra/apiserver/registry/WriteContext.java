package io.kdra.apiserver.registry;

import io.kdra.apiserver.auth.UserInfo;

/**
 * Who writes and how: the identity (for admission), {@code ?dryRun=All} (validate and admit, commit nothing), the
 * field manager recorded in managedFields and the API version the writer used (recorded with its fields).
 *
 * @param version the version of the request's URL, e.g. {@code v1beta1}; null for the server's own writes, which use
 *     the storage version
 */
public record WriteContext(UserInfo user, boolean dryRun, String fieldManager, String version) {

    /** A write by the server itself, in the storage version. */
    public WriteContext(UserInfo user, boolean dryRun, String fieldManager) {
        this(user, dryRun, fieldManager, null);
    }
}
