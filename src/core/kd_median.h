/* The median of repeated timings (bench builds, profiled builds). */
#ifndef KD_MEDIAN_H
#define KD_MEDIAN_H

/* Sorts values[0..n) in place and returns their median (for even n the mean
 * of the middle two); n >= 1. */
double kd_median(double *values, int n);

#endif
