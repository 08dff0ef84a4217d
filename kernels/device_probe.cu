// Compile check of the shared headers under nvcc, and a register/spill report (-Xptxas -v)
// for traversal and BSDF sampling, until the stage kernels land.
#include "kernels/bvh8.h"
#include "kernels/bsdf.h"
#include "kernels/rng.h"
using namespace wp;
__global__ void extend_probe(SceneView s, const Ray* rays, Hit* hits, int n){ int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) hits[i]=intersect_closest(s, rays[i]); }
__global__ void bsdf_probe(MatParams m, vec3* out, int n){ int i=blockIdx.x*blockDim.x+threadIdx.x; if(i>=n) return; BsdfSample b; uint32_t k=path_key(i,0,1);
 if(bsdf_sample(m, vec3(0,0,1), rand01(k,0,kDimBsdfLobe), vec2(rand01(k,0,kDimBsdfU),rand01(k,0,kDimBsdfV)), b)) out[i]=b.f*b.wi.z/b.pdf; }
#include "kernels/lights.h"
#include "kernels/film.h"
__global__ void nee_probe(SceneView s, FilmView f, int n){ int i=blockIdx.x*blockDim.x+threadIdx.x; if(i>=n) return; uint32_t k=path_key(i,0,1); LightSample ls;
 if(sample_light(s, vec3(0), rand01(k,0,kDimLightSelect), vec2(rand01(k,0,kDimLightU),rand01(k,0,kDimLightV)), ls) && !occluded(s, Ray{vec3(0), ls.wi}, ls.dist*0.999f)) film_add(f, i, ls.Le/ls.pdf); }
