/*
 * mapping — parse PMI_process_mapping, the launcher's statement of which ranks
 * share a node.
 *
 * Format (as MPICH's hydra and skiffrun publish it):
 *     (vector,(start,count,per_node),(start,count,per_node),...)
 * Each block gives `per_node` consecutive ranks to each of the nodes
 * start, start+1, ..., start+count-1, in turn; when the blocks are used up
 * before every rank has a node, they repeat from the first (hydra says
 * "(vector,(0,1,1))" for any number of ranks on one host).
 *
 * Pure function of its inputs, no I/O: unit-tested with hostile strings.
 */
#ifndef SKIFF_BOOT_MAPPING_H
#define SKIFF_BOOT_MAPPING_H

/* Fill node_of_rank[size] from text.  Node numbers are renumbered densely
 * (0..*num_nodes-1, in ascending order of the launcher's node ids), so a
 * mapping that skips ids does not make up empty nodes.
 * Returns 0, or -EINVAL for anything that is not a well-formed mapping
 * (then node_of_rank is unspecified), -ENOMEM.  Never reads past the NUL. */
int boot_mapping_parse(const char *text, int size, int *node_of_rank, int *num_nodes);

#endif
