-- The current price of every model (variant) of every product a marketplace pipeline watches: the newest
-- marketplace_price_history row of each model (a row is appended only when the price changed, so the newest is
-- the price now), kept only for models the product still lists.
with ranked as (
    select
        h.*,
        row_number() over (partition by h.pipeline, h.shop_id, h.item_id, h.model_id order by h.id desc) as newest_first
    from {{ source('scrape_etl', 'marketplace_price_history') }} as h
    where h.model_id is not null
)

select
    r.pipeline,
    r.shop_id,
    r.item_id,
    r.model_id,
    m.name as model_name,
    r.currency,
    r.price,
    r.price_major,
    r.previous_price_major,
    m.stock
from ranked as r
inner join {{ source('scrape_etl', 'marketplace_product_models') }} as m
    on m.pipeline = r.pipeline and m.shop_id = r.shop_id and m.item_id = r.item_id and m.model_id = r.model_id
where r.newest_first = 1
