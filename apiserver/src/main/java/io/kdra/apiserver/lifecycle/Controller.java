package io.kdra.apiserver.lifecycle;

import io.kdra.apiserver.storage.WatchEvent;

/** Background work driven by committed changes, run one event at a time in commit order. */
public interface Controller {

    void handle(WatchEvent event);
}
