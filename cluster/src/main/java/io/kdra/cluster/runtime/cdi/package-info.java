/**
 * CDI (Container Device Interface) resolution as a container runtime does it with the CDI reference library: spec
 * files read from the node's CDI directory, device IDs looked up, and the container edits of the devices and their
 * specs merged into what a container gets.
 */
package io.kdra.cluster.runtime.cdi;
