package io.kdra.apiserver.registry;

import io.kdra.apiserver.auth.UserInfo;

/**
 * Who writes and how: the identity (for admission), {@code ?dryRun=All} (validate and admit, commit nothing) and the
 * field manager recorded in managedFields.
 */
public record WriteContext(UserInfo user, boolean dryRun, String fieldManager) {}
