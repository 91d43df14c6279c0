package io.kdra.apiserver.admission;

/**
 * A validating admission check, run after validation and before a write is committed (under the store's write lock,
 * so what it reads is consistent with the write). It denies by throwing an ApiException.
 */
@FunctionalInterface
public interface AdmissionPlugin {

    void admit(AdmissionRequest request);
}
