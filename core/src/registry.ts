import type { AnyPlugin } from './plugin.ts';
import { MangoError } from './errors.ts';

/** A set of plugins keyed by id; a duplicate id is refused. */
export class PluginRegistry {
  private readonly byId = new Map<string, AnyPlugin>();

  constructor(plugins: Iterable<AnyPlugin> = []) {
    for (const p of plugins) this.register(p);
  }

  register(plugin: AnyPlugin): this {
    if (this.byId.has(plugin.id))
      throw new MangoError('DUPLICATE_PLUGIN', `a plugin with id "${plugin.id}" is already registered`);
    this.byId.set(plugin.id, plugin);
    return this;
  }

  get(id: string): AnyPlugin {
    const p = this.byId.get(id);
    if (!p) throw new MangoError('PLUGIN_NOT_FOUND', `no plugin with id "${id}"`);
    return p;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  list(): AnyPlugin[] {
    return [...this.byId.values()];
  }
}
