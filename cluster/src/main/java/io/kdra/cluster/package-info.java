/**
 * The embedded DRA control plane: an API server, the scheduler with the structured allocator, the controllers, and
 * one simulated kubelet per node, each an API client over HTTP, the kubelets talking to drivers over real gRPC on
 * real Unix sockets.
 */
package io.kdra.cluster;
