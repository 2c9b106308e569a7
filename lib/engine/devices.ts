/**
 * Device-name allocation for attaches: per instance, no clash with the instance's current block
 * device mappings, with other attaches in the same batch, nor with the names other attachments to
 * the instance asked for. `/dev/sdf` and `/dev/xvdf` name the
 * same slot on many instance types, so names are compared by their slot (`f`).
 */

/**
 * The slot a device name occupies: the name without `/dev/` and without its scheme's prefix (`xvd`,
 * `sd`, `hd` or `nvme`). `/dev/sdf`, `/dev/xvdf`, `/dev/hdf`, `sdf`, `xvdf` → `f`; `/dev/sda1` →
 * `a1`. So `/dev/hdf` among an instance's mappings (a name of older, paravirtual instances) keeps
 * `/dev/sdf` and `/dev/xvdf` from being handed out, while an NVMe name (`/dev/nvme1n1` → `1n1`: the
 * operating system's name for a volume, not one EC2 attaches under) is a slot no name of the pool
 * occupies, so it holds none back. Any other name is its own slot (`/dev/vdb` → `vdb`).
 */
export function deviceSlot(device: string): string {
  return device.replace(/^\/dev\//, '').replace(/^(xvd|sd|hd|nvme)/, '');
}

export interface DeviceRequest {
  /** Caller's id for this attach (e.g. the record key string). */
  id: string;
  instanceId: string;
  /** A device the client asked for; allocated as is unless another attach in the batch holds it. */
  requestedDevice?: string;
  /**
   * Its place among the attaches to the instance waiting for a name, as every executor environment
   * sees them (the attachment records without a device, in key order): it takes the free name at
   * that place, so environments naming different attaches at once pick different names.
   */
  rank?: number;
}

export type DeviceAllocation = { ok: true; device: string } | { ok: false; code: string; message: string };

/**
 * Allocates one device name per request. Requested names are honoured first (EC2 decides whether
 * they are free); the others take the free name of `pool` at their `rank` among the free names,
 * else (taken, or no rank) the first free one in order. Past the pool, a per-request error.
 * `reservedByInstance`: names other attachments to the instance asked for and may not hold yet
 * (their volume not ready): the pool hands none of them out, and a request for one is honoured.
 */
export function allocateDevices(
  requests: readonly DeviceRequest[],
  usedByInstance: ReadonlyMap<string, readonly string[]>,
  pool: readonly string[],
  reservedByInstance: ReadonlyMap<string, readonly string[]> = new Map(),
): Map<string, DeviceAllocation> {
  const result = new Map<string, DeviceAllocation>();
  const taken = new Map<string, Set<string>>();
  const takenOn = (instanceId: string) => {
    let slots = taken.get(instanceId);
    if (!slots) {
      slots = new Set((usedByInstance.get(instanceId) ?? []).map(deviceSlot));
      taken.set(instanceId, slots);
    }
    return slots;
  };
  for (const request of requests) {
    if (request.requestedDevice === undefined) continue;
    const slots = takenOn(request.instanceId);
    const slot = deviceSlot(request.requestedDevice);
    if (slots.has(slot) && !(usedByInstance.get(request.instanceId) ?? []).some((used) => deviceSlot(used) === slot)) {
      result.set(request.id, {
        ok: false,
        code: 'DeviceNameClash',
        message: `device ${request.requestedDevice} is requested by another attachment to ${request.instanceId} in the same batch`,
      });
      continue;
    }
    slots.add(slot);
    result.set(request.id, { ok: true, device: request.requestedDevice });
  }
  // The names free once the requested and reserved ones are taken, per instance, as every
  // environment sees them (before this batch names any: the ranks index this list).
  const freeAtStart = new Map<string, string[]>();
  for (const { instanceId } of requests) {
    if (freeAtStart.has(instanceId)) continue;
    const slots = takenOn(instanceId);
    for (const reserved of reservedByInstance.get(instanceId) ?? []) slots.add(deviceSlot(reserved));
    freeAtStart.set(instanceId, pool.filter((device) => !slots.has(deviceSlot(device))));
  }
  const freeOn = (instanceId: string) => freeAtStart.get(instanceId)!;
  const cursor = new Map<string, number>();
  // Ranked ones first, so one without a rank never takes the name at another's.
  const unrequested = requests.filter((request) => request.requestedDevice === undefined);
  for (const request of [...unrequested.filter((r) => r.rank !== undefined), ...unrequested.filter((r) => r.rank === undefined)]) {
    const ranked = request.rank === undefined ? undefined : freeOn(request.instanceId)[request.rank];
    const slots = takenOn(request.instanceId);
    if (ranked !== undefined && !slots.has(deviceSlot(ranked))) {
      slots.add(deviceSlot(ranked));
      result.set(request.id, { ok: true, device: ranked });
      continue;
    }
    let index = cursor.get(request.instanceId) ?? 0;
    while (index < pool.length && slots.has(deviceSlot(pool[index]!))) index++;
    const device = pool[index];
    if (device === undefined) {
      result.set(request.id, {
        ok: false,
        code: 'NoFreeDeviceName',
        message: `instance ${request.instanceId} has no free device name left (${pool.length} in the pool)`,
      });
      continue;
    }
    slots.add(deviceSlot(device));
    cursor.set(request.instanceId, index + 1);
    result.set(request.id, { ok: true, device });
  }
  return result;
}
