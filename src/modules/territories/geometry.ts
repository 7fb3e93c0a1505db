import { z } from 'zod';

/** GeoJSON positions are [longitude, latitude] (RFC 7946 §3.1.1). */
const position = z
  .tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)])
  .rest(z.number())
  .describe('[longitude, latitude]');

type Position = z.infer<typeof position>;

const linearRing = z
  .array(position)
  .min(4, 'a linear ring needs at least 4 positions')
  .refine((ring) => {
    const first = ring[0]!;
    const last = ring[ring.length - 1]!;
    return first[0] === last[0] && first[1] === last[1];
  }, 'a linear ring must be closed: its last position must equal its first');

const polygonRings = z.array(linearRing).min(1, 'a polygon needs an exterior ring');

export const geometrySchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('Polygon'), coordinates: polygonRings }),
    z.object({ type: z.literal('MultiPolygon'), coordinates: z.array(polygonRings).min(1) }),
  ])
  .meta({ id: 'TerritoryGeometry', description: 'GeoJSON Polygon or MultiPolygon, [lng, lat] positions' });

export type Geometry = z.infer<typeof geometrySchema>;

export const latLngSchema = z.object({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});
export type LatLng = z.infer<typeof latLngSchema>;

/** Signed area and area-weighted centroid of one ring (shoelace formula, planar approximation). */
function ringMoments(ring: Position[]): { area: number; cx: number; cy: number } {
  let area = 0;
  let cx = 0;
  let cy = 0;
  for (let i = 0; i < ring.length - 1; i++) {
    const [x0, y0] = ring[i]!;
    const [x1, y1] = ring[i + 1]!;
    const cross = x0 * y1 - x1 * y0;
    area += cross;
    cx += (x0 + x1) * cross;
    cy += (y0 + y1) * cross;
  }
  return { area: area / 2, cx, cy };
}

/**
 * The area-weighted centroid of the exterior rings (holes subtracted), good enough at city
 * scale to place a marker; falls back to the mean vertex for degenerate (zero-area) shapes.
 */
export function centroidOf(geometry: Geometry): LatLng {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  let area = 0;
  let cx = 0;
  let cy = 0;
  const vertices: Position[] = [];
  for (const polygon of polygons) {
    polygon.forEach((ring, index) => {
      const moments = ringMoments(ring);
      // Exterior rings add, holes subtract, whatever their winding order.
      const sign = index === 0 ? Math.sign(moments.area) : -Math.sign(moments.area);
      area += sign * moments.area;
      cx += sign * moments.cx;
      cy += sign * moments.cy;
      if (index === 0) vertices.push(...ring.slice(0, -1));
    });
  }
  if (Math.abs(area) < 1e-12) {
    const lng = vertices.reduce((sum, [x]) => sum + x, 0) / vertices.length;
    const lat = vertices.reduce((sum, [, y]) => sum + y, 0) / vertices.length;
    return { lat, lng };
  }
  return { lat: cy / (6 * area), lng: cx / (6 * area) };
}
