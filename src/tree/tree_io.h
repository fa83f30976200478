/* Versioned binary tree files (build --save x.kd, render --tree x.kd). */
#ifndef KD_TREE_IO_H
#define KD_TREE_IO_H

#include "kd_tree.h"

kd_status kd_tree_save(const kd_tree *tree, const char *path, kd_error *err);
/* Rejects a wrong magic, version, truncated or inconsistent file with a clear message. */
kd_status kd_tree_load(kd_tree *tree, const char *path, kd_error *err);
/* Structural checks any loaded or built tree must pass (indices in range,
 * children after parents, counts consistent). */
kd_status kd_tree_check_structure(const kd_tree *tree, kd_error *err);

#endif
