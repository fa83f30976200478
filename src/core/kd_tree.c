#include "kd_tree.h"

#include <stdlib.h>
#include <string.h>

void kd_tree_free(kd_tree *tree)
{
    if (!tree)
        return;
    free(tree->nodes);
    free(tree->leaf_indices);
    memset(tree, 0, sizeof *tree);
}
